/* SPDX-License-Identifier: BSD-2-Clause */
/* redact.h - the one redaction engine: `tracer-record --redact`,
 * `tracer-analyze bundle --redact` and summary's credential warning.
 * libc only (POSIX regex), so record/ and analyze/ both link it.
 *
 * One mask style everywhere: every byte of a secret becomes '*', in place,
 * so lengths stay exact (the recorder's records keep their layout, a
 * bundle's rewritten trace keeps every "<blob>_len"); a run of '*' is never
 * counted as a secret again. Only the secret's length is kept.
 *
 * What is a secret (the list, with examples, is in docs/RELIABILITY.md,
 * "Privacy", and `tracer-analyze bundle --help` prints it):
 *  - in any string, the patterns of redact_default_patterns: key=value,
 *    key: value, JSON "key": "value", quoted values, "--token VALUE",
 *    URL passwords, /home/NAME, well-known token shapes (AWS, GitHub,
 *    GitLab, Slack, JWT, Google, Stripe, OpenAI, npm, PyPI, Hugging Face,
 *    Docker, SendGrid, Shopify, Telegram, age, Mailgun, PEM private keys),
 *    bearer/basic authorisation values, mysql -pX and sshpass -p X;
 *  - in an argv, argument by argument (redact_argv_step): the argument
 *    after an option named like a secret (--db-password X) or an
 *    authorisation word (Bearer X), everything after '=' in
 *    --KEY=value / KEY=value, -pX for mysql/mariadb and sshpass;
 *  - a string that may have been cut (an argv longer than --argv-max, a
 *    15-byte comm): a token shape's beginning at its end (REDACT_TAIL);
 *  - in a record (redact_strs): a comm derived from a masked executable
 *    name, and any later comm equal to one masked before (an exit event's
 *    comm after its exec's).
 */
#ifndef TRACER_REDACT_H
#define TRACER_REDACT_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One built-in pattern. In re, "(@" opens a group whose match is the secret
 * (the '@' is not part of the regex); a pattern without one masks its whole
 * match. */
struct redact_pattern {
	const char *re;	     /* POSIX extended regular expression */
	int icase;	     /* compiled with REG_ICASE */
	const char *catches; /* an example, for the docs and --help */
	const char *words;   /* prefilter words (redact.c) a match needs one of,
				space-separated: the regex runs only on strings
				holding one */
};

/* The built-in list, ended by {NULL}. */
extern const struct redact_pattern redact_default_patterns[];

/* The argv rules' regexes (case-insensitive), for --help: an argument
 * matching redact_secret_flag ("--client-secret") or redact_secret_scheme
 * ("Bearer") makes the next argument a secret, masked whole. */
extern const char redact_secret_flag[];
extern const char redact_secret_scheme[];

/* Print the built-in list, one "indent REGEX   (EXAMPLE)" line each with
 * its "(@" markers, and the argv rules, to f. */
void redact_print_patterns(FILE *f, const char *indent);

#define REDACT_MAX 64	     /* compiled patterns, built-in and added */
#define REDACT_COMM_SIZE 16  /* task->comm: 15 bytes and a NUL */
#define REDACT_COMMS 64	     /* masked comms remembered (redact_strs) */

struct redact_re {
	regex_t re;
	uint64_t need;	 /* prefilter words, one of which a match needs; 0: any
			    string (an added pattern) */
	uint32_t groups; /* secret groups (bit g: group g), 0: the whole match */
	int last;	 /* added pattern: only its last matched group */
};

struct redact_argv {
	regex_t flag, scheme, kv;
	uint64_t wkey, wscheme; /* prefilter words flag/kv and scheme need */
	int ok;
};

/* Where an argv walk is (redact_argv_step); zero it before argv[0]. */
struct redact_argv_state {
	uint32_t idx;	 /* index of the next argument */
	uint8_t pending; /* the next argument is a secret */
	uint8_t prog;	 /* a program whose -pX is a password was seen */
};

struct redact {
	struct redact_re re[REDACT_MAX];
	size_t n;
	unsigned added; /* patterns added with redact_add (no prefilter) */
	regex_t tail;	/* token beginnings at the end of a cut string */
	int tail_ok;
	struct redact_argv argv;
	struct { /* comms masked so far: original and masked bytes */
		char orig[REDACT_COMM_SIZE], masked[REDACT_COMM_SIZE];
	} comm[REDACT_COMMS];
	unsigned ncomm, comm_next;
	uint64_t hits; /* secrets masked so far */
};

/* Compile the built-in patterns and the argv rules into rd (zeroed by the
 * caller). Returns 0, or -1 (rd freed). */
int redact_init(struct redact *rd);

/* Add one more pattern (case-insensitive; with groups only the last group
 * that matched is the secret). Returns 0, or -1 with regerror()'s text (or
 * "more than N patterns") in why[why_len]. */
int redact_add(struct redact *rd, const char *pattern, char *why, size_t why_len);

void redact_free(struct redact *rd);

/* Compile / free the argv rules alone. redact_argv_init returns 0, or -1
 * (nothing to free). */
int redact_argv_init(struct redact_argv *ra);
void redact_argv_free(struct redact_argv *ra);

/* Feed the argv elements in order, arg NUL-terminated, len = strlen(arg).
 * Returns the offset in arg from which it is a secret to mask (0: the whole
 * argument, 2: after "-p"), or -1 (the caller still applies the patterns). */
int redact_argv_step(const struct redact_argv *ra, struct redact_argv_state *st, const char *arg,
		     size_t len);

/* Mask every secret in the NUL-free string s[0..len) with '*', in place;
 * s[len] must be writable (it is restored). Returns the number masked. */
unsigned redact_mask(struct redact *rd, char *s, size_t len);

/* Mask a blob in place: a path or text (argv = 0), every NUL-separated
 * piece of it, or a NUL-separated argv (argv = 1) argument by argument. Returns the number
 * of secrets masked. No prefilter: callers use redact_maybe() first. */
unsigned redact_mask_blob(struct redact *rd, uint8_t *p, size_t len, int argv);

/* What one string of a record is. */
enum redact_kind {
	REDACT_TEXT = 0, /* anything else */
	REDACT_PATH,	 /* a path: its basename may have named the comm */
	REDACT_ARGV,	 /* NUL-separated argv: argv[0]'s basename too */
	REDACT_COMM,	 /* a NUL-padded char array (task->comm) */
};

struct redact_str {
	uint8_t *p;   /* bytes, masked in place (may be NULL when len is 0) */
	size_t len;   /* bytes; REDACT_COMM: the array's size */
	uint8_t kind; /* enum redact_kind */
	uint8_t cut;  /* the string may be the beginning of a longer one */
};

/*
 * Mask the strings of one record (an exec: filename, exe, script, argv,
 * comm; an exit: comm) in place, lengths kept: every string through
 * redact_maybe() and the patterns (argv through the argv rules), the end
 * of a cut string through the token beginnings; then every comm: the
 * bytes masked in the path or argv[0] basename it is the beginning of, the
 * mask of an equal comm masked before, the patterns, and token beginnings
 * when it fills its array (the kernel cut it at 15 bytes). A masked comm is
 * remembered (REDACT_COMMS, oldest replaced) for later records. Returns the
 * number of secrets masked.
 */
unsigned redact_strs(struct redact *rd, struct redact_str *s, size_t n);

/* Cheap prefilter: 0 when p[0..len) holds none of the literal words every
 * built-in pattern and rule needs (added patterns have no words: with one,
 * redact_strs masks every string) (redact.c, maybe_words: pass, secret, token, key,
 * auth, akia, gh?_, ://, ...; any case), so nothing in it can be a secret
 * and the regexes can be skipped; 1 when it may hold one. */
int redact_maybe(const uint8_t *p, size_t len);

#endif
