/* redact.h - the secret patterns shared by `tracer-record --redact`,
 * `tracer-analyze bundle --redact` and summary's credential warning.
 * libc only (POSIX regex), so record/ and analyze/ both link it.
 *
 * The default list (redact_default_patterns, documented in
 * docs/RELIABILITY.md "Privacy") matches, case-insensitively:
 * key=value / key:value secrets (password, passwd, passphrase, secret,
 * token, api-key, access-key, auth, credentials, private-key), "--token X"
 * inside one string, URL credentials (scheme://user:PASSWORD@host), user
 * names in /home/NAME and /Users/NAME, AWS access key ids (AKIA...), GitHub
 * (ghp_...) and Slack (xox?-...) tokens, bearer/basic authorisation values
 * and PEM private-key headers. When a pattern has groups only its last
 * matched group is the secret ("--password=x" keeps its key).
 */
#ifndef TRACER_REDACT_H
#define TRACER_REDACT_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

/* NULL-terminated POSIX extended regular expressions (case-insensitive). */
extern const char *const redact_default_patterns[];
/*
 * Whole-argv rules (the same in the recorder, the bundle and summary): an
 * element that is an option name ending in a secret word ("--token",
 * "-password", "--db-password", "--client-secret", "--private-key",
 * "--access-token", "--api-key": redact_secret_flag) or an authorisation
 * word ("Authorization:", "Bearer", "Basic", "Digest", "token":
 * redact_secret_scheme) makes the next element a secret, masked whole; an
 * authorisation word after one of those passes the rule on
 * ("Authorization:" "Bearer" X masks X). "--x-password=value" inside one
 * element is a key=value pattern of redact_default_patterns.
 */
extern const char redact_secret_flag[];
extern const char redact_secret_scheme[];

struct redact_argv {
	regex_t flag, scheme;
	int ok;
};

/* Compile the two rules into ra. Returns 0, or -1 (nothing to free). */
int redact_argv_init(struct redact_argv *ra);
void redact_argv_free(struct redact_argv *ra);

/* Feed the argv elements in order (*pending = 0 before the first). Returns 1
 * when arg (NUL-terminated) is a secret to mask whole, else 0 (the caller
 * still applies the patterns to it). */
int redact_argv_step(const struct redact_argv *ra, int *pending, const char *arg);

#define REDACT_MAX 64

struct redact {
	regex_t re[REDACT_MAX];
	size_t n;
	struct redact_argv argv;
	uint64_t hits; /* secrets found so far */
};

/* What bundle --redact writes in place of a secret (lengths change there);
 * like a run of '*', it is never counted as a secret again. */
#define REDACT_PLACEHOLDER "<redacted>"

/* Compile the default patterns and the flag rule into rd (zeroed by the
 * caller). Returns 0, or -1 (rd freed). */
int redact_init(struct redact *rd);

/* Add one more pattern. Returns 0, or -1 with regerror()'s text (or "too
 * many patterns") in why[why_len]. */
int redact_add(struct redact *rd, const char *pattern, char *why, size_t why_len);

void redact_free(struct redact *rd);

/* Overwrite every secret in the NUL-free string s[0..len) with '*', in
 * place (lengths stay exact, so records keep their layout); s[len] must be
 * writable (it is restored). Returns the number of secrets masked. */
unsigned redact_mask(struct redact *rd, char *s, size_t len);

/* Mask a blob in place: a path (argv = 0) up to its first NUL, or a
 * NUL-separated argv (argv = 1), where an element after a secret flag is
 * masked whole. Returns the number of secrets masked. */
unsigned redact_mask_blob(struct redact *rd, uint8_t *p, size_t len, int argv);

/* Cheap prefilter: 0 when p[0..len) holds none of the literal words the
 * patterns and rules need (pass, secret, token, key, auth, cred, akia,
 * gh?_, xox, bearer, basic, digest, begin, ://, /home/, /users/; any case),
 * so nothing in it can be a secret and the regexes can be skipped; 1 when
 * it may hold one. Keep it in step with the patterns. */
int redact_maybe(const uint8_t *p, size_t len);

#endif
