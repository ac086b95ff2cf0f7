/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tool.c - tool identity (tool.h). One rule table: add a line to teach the
 * analyzer a new interpreter, loader or tool with subcommands.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "task.h"
#include "tool.h"

#define MAX_ARGS 256

enum rule_kind {
	R_INTERP, /* named by the first non-option argument (script), -m module */
	R_JAVA,	  /* -jar X.jar, -m module/class, else MainClass */
	R_RLANG,  /* R --file=X / -f X */
	R_LOADER, /* ld.so: the program it runs, identified again */
	R_APPLET, /* busybox: argv[0]'s basename, identified again */
};

/*
 * Interpreters and launchers, matched by fnmatch() on the exe's basename.
 * argopts: options that take the next argument; inline: options meaning
 * "code on the command line" (the tool is then the interpreter itself);
 * module: the option naming a module that is the tool (python -m pip);
 * stdin_opts: arguments meaning "the script is read from standard input"
 * (python3 -, bash -s; shells also in option clusters: -es): the tool is
 * then "INTERP (stdin script)". awk's "-f -" is handled by scan_interp.
 */
static const struct rule {
	const char *glob;
	enum rule_kind kind;
	const char *argopts, *inline_opts, *module, *stdin_opts;
} rules[] = {
	{"python*", R_INTERP, "-W -X -Q", "-c", "-m", "-"},
	{"pypy*", R_INTERP, "-W -X -Q", "-c", "-m", "-"},
	{"perl*", R_INTERP, "-I -M -x", "-e -E", NULL, "-"},
	{"ruby*", R_INTERP, "-I -r -C -E", "-e", NULL, "-"},
	{"node", R_INTERP, "-r --require --import --loader", "-e --eval -p --print", NULL, "-"},
	{"nodejs", R_INTERP, "-r --require --import --loader", "-e --eval -p --print", NULL, "-"},
	{"Rscript", R_INTERP, "", "-e", NULL, "-"},
	{"R", R_RLANG, NULL, NULL, NULL, NULL},
	{"java", R_JAVA, "-cp -classpath --class-path -p --module-path --add-modules", NULL, NULL,
	 NULL},
	{"sh", R_INTERP, "-o +o -O +O --rcfile --init-file", "-c", NULL, "-s"},
	{"bash", R_INTERP, "-o +o -O +O --rcfile --init-file", "-c", NULL, "-s"},
	{"dash", R_INTERP, "-o +o", "-c", NULL, "-s"},
	{"zsh", R_INTERP, "-o +o", "-c", NULL, "-s"},
	{"ksh*", R_INTERP, "-o +o", "-c", NULL, "-s"},
	{"mksh", R_INTERP, "-o +o", "-c", NULL, "-s"},
	{"ash", R_INTERP, "-o +o", "-c", NULL, "-s"},
	{"tclsh*", R_INTERP, "", "", NULL, NULL},
	{"lua*", R_INTERP, "-l", "-e", NULL, "-"},
	{"php*", R_INTERP, "-c -d -z", "-r", NULL, NULL},
	/* awk, gawk, mawk, nawk: only "awk -f prog" names a script */
	{"*awk", R_INTERP, "-F -v", "", NULL, NULL},
	{"ld-linux*.so*", R_LOADER,
	 "--library-path --preload --argv0 --audit --inhibit-rpath --glibc-hwcaps-prepend "
	 "--glibc-hwcaps-mask",
	 NULL, NULL, NULL},
	{"ld-*.so*", R_LOADER, "--library-path --preload --argv0 --audit --inhibit-rpath", NULL,
	 NULL, NULL},
	{"ld.so", R_LOADER, "--library-path --preload --argv0 --audit --inhibit-rpath", NULL, NULL,
	 NULL},
	{"busybox", R_APPLET, NULL, NULL, NULL, NULL},
};

/* Tools whose first plain argument is a subcommand (fnmatch on the tool). */
static const char *const subcmd_tools[] = {
	"samtools", "bcftools", "bwa", "bwa-mem2", "gatk", "gatk4", "git", "bedtools",
	"bamtools", "sambamba", "seqkit", "csvtk", "salmon", "kallisto", "picard", "fgbio",
	"docker", "podman", "singularity", "apptainer", "conda", "mamba", "micromamba",
	"pip", "pip3", "apt", "apt-get", "dnf", "yum", "kubectl", "cargo", "go", "npm",
	"yarn", "nextflow", "nf-core", "htsfile", "plink2", "pyenv", "rbenv", "*.jar",
};

struct args {
	char *buf;
	const char *av[MAX_ARGS];
	int ac;
};

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static int in_list(const char *list, const char *w)
{
	size_t n = strlen(w);
	if (!list || !n)
		return 0;
	for (const char *p = list; (p = strstr(p, w)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
	return 0;
}

struct ident {
	const char *name; /* the tool (a pointer into argv or exe) */
	int rest;	  /* index of the tool's own first argument */
};

static int identify(const char *exe, const char *script, const struct args *a, int off,
		    int depth, int rule, struct ident *id);

/*
 * The names seen (exe basenames, tools, commands), each kept once for the
 * life of the program: the tool and command strings every process of a
 * tool shares (tza_proc_key), and a name's answers to the glob tables (the
 * first interpreter/loader rule matching a basename, the subcommand test of
 * a tool), so fnmatch() runs once per distinct name, not once per process.
 * Open addressing, grown at half full.
 */
struct name {
	const char *s; /* NUL-terminated; NULL: empty slot */
	uint64_t hash;
	int rule;   /* rules[] index, -1: none, -2: not asked yet */
	int subcmd; /* subcmd_glob(): 0, 1, -1: not asked yet */
};

static struct {
	struct name *t;
	size_t cap, n; /* cap: a power of two, or 0 */
} names;

static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ULL;
	return h ^ (h >> 31);
}

static struct name *name_slot(struct name *t, size_t cap, const char *s, uint64_t h)
{
	for (size_t i = h & (cap - 1);; i = (i + 1) & (cap - 1))
		if (!t[i].s || (t[i].hash == h && !strcmp(t[i].s, s)))
			return &t[i];
}

/* The entry of s, added when new; NULL when out of memory. */
static struct name *name_get(const char *s)
{
	uint64_t h = name_hash(s);
	struct name *e;
	if (names.cap) {
		e = name_slot(names.t, names.cap, s, h);
		if (e->s)
			return e;
	}
	if ((names.n + 1) * 2 > names.cap) {
		size_t cap = names.cap ? names.cap * 2 : 256;
		struct name *t = calloc(cap, sizeof(*t));
		if (!t)
			return NULL;
		for (size_t i = 0; i < names.cap; i++)
			if (names.t[i].s)
				*name_slot(t, cap, names.t[i].s, names.t[i].hash) = names.t[i];
		free(names.t);
		names.t = t;
		names.cap = cap;
	}
	e = name_slot(names.t, names.cap, s, h);
	if (!(e->s = strdup(s)))
		return NULL;
	e->hash = h;
	e->rule = -2;
	e->subcmd = -1;
	names.n++;
	return e;
}

/* s interned: one copy per distinct string; NULL when out of memory. */
static const char *intern(const char *s)
{
	const struct name *e = name_get(s);
	return e ? e->s : NULL;
}

/* Distinct (tool, command) pairs of interned names, by id - 1: a process
 * keeps its pair's 4-byte id (tza_proc.key_pair), not two pointers */
struct kpair {
	const char *tool, *command;
};

static struct {
	struct kpair *v;
	uint32_t n, cap;
	uint32_t *slot; /* id, 0: empty; hcap slots (a power of two) */
	uint32_t hcap;
} pairs;

static uint32_t pair_home(const char *t, const char *c, uint32_t hcap)
{
	uint64_t h = ((uintptr_t)t * 0x9e3779b97f4a7c15ULL) ^ ((uintptr_t)c * 0xc2b2ae3d27d4eb4fULL);
	return (uint32_t)(h >> 32) & (hcap - 1);
}

/* The id (>= 1) of the pair of interned t and c, added when new; 0 when out
 * of memory */
static uint32_t pair_id(const char *t, const char *c)
{
	uint32_t i;
	if (pairs.hcap) {
		for (i = pair_home(t, c, pairs.hcap); pairs.slot[i]; i = (i + 1) & (pairs.hcap - 1)) {
			const struct kpair *k = &pairs.v[pairs.slot[i] - 1];
			if (k->tool == t && k->command == c)
				return pairs.slot[i];
		}
	}
	if (pairs.n == UINT32_MAX - 1)
		return 0;
	if (pairs.n == pairs.cap) {
		uint32_t cap = pairs.cap ? pairs.cap * 2 : 64;
		struct kpair *v = realloc(pairs.v, (size_t)cap * sizeof(*v));
		if (!v)
			return 0;
		pairs.v = v;
		pairs.cap = cap;
	}
	if ((pairs.n + 1) * 2 > pairs.hcap) { /* rehash every id into a table twice as big */
		uint32_t hcap = pairs.hcap ? pairs.hcap * 2 : 128;
		uint32_t *s = calloc(hcap, sizeof(*s));
		if (!s)
			return 0;
		for (uint32_t id = 1; id <= pairs.n; id++) {
			const struct kpair *k = &pairs.v[id - 1];
			for (i = pair_home(k->tool, k->command, hcap); s[i]; i = (i + 1) & (hcap - 1))
				;
			s[i] = id;
		}
		free(pairs.slot);
		pairs.slot = s;
		pairs.hcap = hcap;
	}
	for (i = pair_home(t, c, pairs.hcap); pairs.slot[i]; i = (i + 1) & (pairs.hcap - 1))
		;
	pairs.v[pairs.n++] = (struct kpair){t, c};
	pairs.slot[i] = pairs.n;
	return pairs.n;
}

/* "INTERP (what script)", interned; NULL when out of memory */
static const char *interp_named(const char *interp, const char *what)
{
	char buf[128];
	snprintf(buf, sizeof(buf), "%s (%s script)", interp, what);
	return intern(buf);
}

/*
 * The name of a script an interpreter runs. A script read from a file
 * descriptor has no name of its own: standard input (-, /dev/stdin,
 * /dev/fd/0, /proc/self/fd/0, /proc/PID/fd/0: a pipe or a here-document)
 * is "INTERP (stdin script)"; any other descriptor (bash /dev/fd/3, bash
 * <(...) reading /dev/fd/63, /proc/PID/fd/N) is "INTERP (fd script)": the
 * trace says which descriptor, not what it was. Else the path's basename.
 */
static const char *script_name(const char *interp, const char *path)
{
	const char *p = path, *fd = NULL;

	if (!strncmp(p, "/dev/fd/", 8)) {
		fd = p + 8;
	} else if (!strcmp(p, "/dev/stdin") || !strcmp(p, "-")) {
		fd = "0";
	} else if (!strncmp(p, "/proc/", 6)) {
		p += 6;
		if (!strncmp(p, "self/", 5)) {
			p += 5;
		} else if (!strncmp(p, "thread-self/", 12)) {
			p += 12;
		} else {
			size_t d = strspn(p, "0123456789");
			p = d && p[d] == '/' ? p + d + 1 : "";
		}
		if (!strncmp(p, "fd/", 3))
			fd = p + 3;
	}
	if (!fd || !*fd || strspn(fd, "0123456789") != strlen(fd) || !*interp)
		return base(path);
	const char *n = interp_named(interp, strspn(fd, "0") == strlen(fd) ? "stdin" : "fd");
	return n ? n : base(path);
}

/* Index of the first rule whose glob matches e's name (a basename), or -1. */
static int name_rule(struct name *e)
{
	if (e->rule == -2) {
		e->rule = -1;
		for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
			if (!fnmatch(rules[i].glob, e->s, 0)) {
				e->rule = (int)i;
				break;
			}
	}
	return e->rule;
}

static int rule_for(const char *bn)
{
	struct name *e = name_get(bn);
	if (e)
		return name_rule(e);
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) /* out of memory */
		if (!fnmatch(rules[i].glob, bn, 0))
			return (int)i;
	return -1;
}

/* Shell option clusters: "-ec" means -e -c, "-es" -e -s. */
static int shell_opt(const char *opt, int c)
{
	return opt[0] == '-' && opt[1] && opt[1] != '-' && strchr(opt + 1, c);
}

static int scan_interp(const struct rule *r, const char *bn, const struct args *a, int off,
		       struct ident *id)
{
	static signed char shells[sizeof(rules) / sizeof(rules[0])]; /* 0: not asked, 1, -1 */
	signed char *sh = &shells[r - rules];
	if (!*sh)
		*sh = r->inline_opts && !strcmp(r->inline_opts, "-c") && in_list(r->argopts, "-o")
			      ? 1
			      : -1;
	int shell = *sh > 0, awk = !strcmp(r->glob, "*awk");
	for (int i = off + 1; i < a->ac; i++) {
		const char *s = a->av[i];
		if (awk) { /* awk -f prog: prog; awk 'program' file: awk itself */
			if (!strcmp(s, "-f") && i + 1 < a->ac) {
				id->name = script_name(bn, a->av[i + 1]);
				id->rest = i + 2;
				return 1;
			}
			if (in_list(r->argopts, s))
				i++;
			else if (s[0] != '-' || !s[1] || !strcmp(s, "--"))
				return 0;
			continue;
		}
		if (in_list(r->stdin_opts, s) ||
		    (shell && shell_opt(s, 's') && !shell_opt(s, 'c'))) {
			if (!(id->name = interp_named(bn, "stdin")))
				return 0;
			id->rest = i + 1;
			return 1;
		}
		if (!strcmp(s, "--") || !strcmp(s, "-")) {
			if (i + 1 >= a->ac)
				return 0;
			id->name = script_name(bn, a->av[i + 1]);
			id->rest = i + 2;
			return 1;
		}
		if (s[0] != '-' && !(shell && s[0] == '+')) {
			id->name = script_name(bn, s);
			id->rest = i + 1;
			return 1;
		}
		if (in_list(r->inline_opts, s) || (shell && shell_opt(s, 'c')))
			return 0;
		if (r->module && !strcmp(s, r->module) && i + 1 < a->ac) {
			id->name = a->av[i + 1];
			id->rest = i + 2;
			return 1;
		}
		if (in_list(r->argopts, s))
			i++;
	}
	return 0;
}

static int scan_java(const struct rule *r, const struct args *a, int off, struct ident *id)
{
	for (int i = off + 1; i < a->ac; i++) {
		const char *s = a->av[i];
		if ((!strcmp(s, "-jar") || !strcmp(s, "--jar")) && i + 1 < a->ac) {
			id->name = base(a->av[i + 1]);
			id->rest = i + 2;
			return 1;
		}
		if ((!strcmp(s, "-m") || !strcmp(s, "--module")) && i + 1 < a->ac) {
			const char *m = a->av[i + 1], *sl = strchr(m, '/');
			id->name = sl ? sl + 1 : m;
			id->rest = i + 2;
			return 1;
		}
		if (s[0] != '-') {
			id->name = s;
			id->rest = i + 1;
			return 1;
		}
		if (in_list(r->argopts, s))
			i++;
	}
	return 0;
}

static int scan_r(const struct args *a, int off, struct ident *id)
{
	for (int i = off + 1; i < a->ac; i++) {
		const char *s = a->av[i];
		if (!strcmp(s, "--args"))
			return 0;
		if (!strncmp(s, "--file=", 7) && s[7]) {
			id->name = base(s + 7);
			id->rest = i + 1;
			return 1;
		}
		if (!strcmp(s, "-f") && i + 1 < a->ac) {
			id->name = base(a->av[i + 1]);
			id->rest = i + 2;
			return 1;
		}
	}
	return 0;
}

static int scan_loader(const struct rule *r, const struct args *a, int off, int depth,
		       struct ident *id)
{
	for (int i = off + 1; i < a->ac; i++) {
		const char *s = a->av[i];
		if (s[0] != '-')
			return identify(s, NULL, a, i, depth + 1, -2, id);
		if (!strcmp(s, "--list") || !strcmp(s, "--verify") || !strcmp(s, "--help"))
			return 0;
		if (in_list(r->argopts, s))
			i++;
	}
	return 0;
}

/* rule: rules[] index for exe's basename when the caller knows it (-1:
 * none), -2: look it up */
static int identify(const char *exe, const char *script, const struct args *a, int off,
		    int depth, int rule, struct ident *id)
{
	const char *bn = exe && *exe ? base(exe) : "";
	if (!*bn && off < a->ac)
		bn = base(a->av[off]);
	int k = depth >= 4 ? -1 : rule >= -1 ? rule : rule_for(bn);
	if (k >= 0) {
		const struct rule *r = &rules[k];
		int ok = 0;
		switch (r->kind) {
		case R_INTERP:
			ok = scan_interp(r, bn, a, off, id);
			break;
		case R_JAVA:
			ok = scan_java(r, a, off, id);
			break;
		case R_RLANG:
			ok = scan_r(a, off, id);
			break;
		case R_LOADER:
			ok = scan_loader(r, a, off, depth, id);
			break;
		case R_APPLET:
			if (off < a->ac && strcmp(base(a->av[off]), "busybox"))
				ok = identify(a->av[off], NULL, a, off, depth + 1, -2, id);
			else if (off + 1 < a->ac)
				ok = identify(a->av[off + 1], NULL, a, off + 1, depth + 1, -2, id);
			break;
		}
		if (ok)
			return 1;
	}
	if (script && *script) {
		id->name = script_name(bn, script);
		id->rest = a->ac;
		for (int i = off + 1; i < a->ac; i++)
			if (!strcmp(a->av[i], script)) {
				id->rest = i + 1;
				break;
			}
		return 1;
	}
	if (!*bn)
		return 0;
	id->name = bn;
	id->rest = off + 1;
	return 1;
}

static int is_word(const char *s)
{
	if (!((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')))
		return 0;
	size_t n = 0;
	for (; s[n]; n++)
		if (!((s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= 'a' && s[n] <= 'z') ||
		      (s[n] >= '0' && s[n] <= '9') || s[n] == '_' || s[n] == '-'))
			return 0;
	return n <= 48;
}

static int subcmd_glob(const char *tool)
{
	for (size_t k = 0; k < sizeof(subcmd_tools) / sizeof(subcmd_tools[0]); k++)
		if (!fnmatch(subcmd_tools[k], tool, 0))
			return 1;
	return 0;
}

static int name_subcmd(struct name *e)
{
	if (e->subcmd < 0)
		e->subcmd = subcmd_glob(e->s);
	return e->subcmd;
}

/* p is a file descriptor's path: /dev/fd/N, /proc/self/fd/N, /proc/PID/fd/N */
static int fd_path(const char *p)
{
	if (!strncmp(p, "/dev/fd/", 8))
		return 1;
	if (strncmp(p, "/proc/", 6))
		return 0;
	const char *s = strchr(p + 6, '/');
	return s && !strncmp(s, "/fd/", 4);
}

/*
 * The name an executable run from a memfd (fexecve; exe "memfd:NAME",
 * memfd the part after "memfd:") is identified by: argv[0]'s basename when
 * it means something (not empty, not a descriptor's path such as
 * /proc/self/fd/3, not "memfd:..."); else the memfd's name without " (deleted)"
 * and without a random suffix: a '-', '_' or '.' then 6 or more hex digits
 * with at least one digit ("sealed-91173221a7ea" is "sealed"). '/' becomes
 * '_' (a name, never a path). Written into buf.
 */
static const char *memfd_name(const char *memfd, const uint8_t *argv, uint32_t argv_len,
			      char *buf, size_t size)
{
	size_t n = argv_len ? strnlen((const char *)argv, argv_len) : 0;
	snprintf(buf, size, "%.*s", (int)(n < size ? n : size - 1), (const char *)argv);
	if (*buf && !fd_path(buf) && strncmp(buf, "memfd:", 6) && *base(buf)) {
		memmove(buf, base(buf), strlen(base(buf)) + 1);
		return buf;
	}
	const char *e = strstr(memfd, " (deleted)");
	n = e ? (size_t)(e - memfd) : strlen(memfd);
	snprintf(buf, size, "%.*s", (int)n, memfd);
	n = strlen(buf);
	size_t h = n, digits = 0;
	for (; h > 0 && strchr("0123456789abcdefABCDEF", buf[h - 1]); h--)
		digits += buf[h - 1] >= '0' && buf[h - 1] <= '9';
	if (n - h >= 6 && digits && h > 1 && strchr("-_.", buf[h - 1]))
		buf[h - 1] = 0;
	for (char *c = buf; *c; c++)
		if (*c == '/')
			*c = '_';
	return buf;
}

/* tza_tool_name with interned results; -1 when out of memory. */
static int tool_ident(const char *exe, const char *script, const uint8_t *argv,
		      uint32_t argv_len, const char **tool, const char **command)
{
	char mbuf[256];
	if (exe && !strncmp(exe, "memfd:", 6) && exe[6])
		exe = memfd_name(exe + 6, argv, argv_len, mbuf, sizeof(mbuf));
	/* most processes: the exe's basename alone decides (no interpreter or
	 * loader rule, no script, no subcommands): the tool is the basename */
	const char *bn = exe && *exe ? base(exe) : "";
	struct name *e = *bn ? name_get(bn) : NULL;
	if (e && !(script && *script) && name_rule(e) < 0 && !name_subcmd(e)) {
		*tool = *command = e->s;
		return 0;
	}
	struct args a;
	char small[1024], cbuf[256]; /* most argvs and commands: no malloc */
	char *cmd = NULL;
	int rc = -1;
	a.ac = 0;
	if (!argv_len || !argv[argv_len - 1]) {
		a.buf = (char *)argv; /* every argument terminated: read in place */
	} else {
		a.buf = argv_len < sizeof(small) ? small : malloc((size_t)argv_len + 1);
		if (!a.buf)
			return -1;
		memcpy(a.buf, argv, argv_len);
		a.buf[argv_len] = 0;
	}
	for (uint32_t i = 0; i < argv_len && a.ac < MAX_ARGS;) {
		a.av[a.ac++] = a.buf + i;
		i += (uint32_t)strlen(a.buf + i) + 1;
	}
	struct ident id = {NULL, 0};
	if (!identify(exe, script, &a, 0, 0, e ? name_rule(e) : -2, &id))
		id.name = "?";
	const char *name = *id.name ? id.name : "?";
	struct name *ne = e && name == bn ? e : name_get(name); /* named by its exe */
	*tool = ne ? ne->s : NULL;
	if (id.rest > 0 && id.rest < a.ac && (ne ? name_subcmd(ne) : subcmd_glob(name)) &&
	    is_word(a.av[id.rest])) {
		size_t n = strlen(name), k = strlen(a.av[id.rest]);
		cmd = n + k + 2 <= sizeof(cbuf) ? cbuf : malloc(n + k + 2);
		if (cmd) {
			memcpy(cmd, name, n);
			cmd[n] = ' ';
			memcpy(cmd + n + 1, a.av[id.rest], k + 1);
			*command = intern(cmd);
		} else {
			*command = NULL;
		}
	} else {
		*command = *tool;
	}
	if (*tool && *command)
		rc = 0;
	if (cmd != cbuf)
		free(cmd);
	if (a.buf != small && a.buf != (char *)argv)
		free(a.buf);
	return rc;
}

int tza_tool_name(const char *exe, const char *script, const uint8_t *argv, uint32_t argv_len,
		  char **tool, char **command)
{
	const char *t, *c;
	if (tool_ident(exe, script, argv, argv_len, &t, &c) < 0)
		return -1;
	*tool = strdup(t);
	*command = strdup(c);
	if (!*tool || !*command) {
		free(*tool);
		free(*command);
		return -1;
	}
	return 0;
}

/*
 * Programs that only set something up and exec what they were given (env
 * X=1 cmd, nice, nohup, setsid, stdbuf, chrt, taskset, ionice, chroot,
 * unshare, nsenter, numactl; time, timeout, sudo and doas when they exec
 * rather than fork): an image of these with a later image in the same
 * process is passed through (see named_image).
 */
static const char *const passthrough[] = {
	"env", "nice", "nohup", "setsid", "stdbuf", "chrt", "taskset", "ionice", "chroot",
	"unshare", "nsenter", "numactl", "time", "timeout", "sudo", "doas",
};

/* e's argv[0] basename or its exe's basename is name (argv may be cut) */
static int image_named(const struct tza_exec *e, const char *name)
{
	if (e->ctx->exe && *e->ctx->exe && !strcmp(base(e->ctx->exe), name))
		return 1;
	if (!e->argv_len)
		return 0;
	size_t n = strnlen((const char *)e->argv, e->argv_len);
	char a0[256];
	snprintf(a0, sizeof(a0), "%.*s", (int)(n < 255 ? n : 255), (const char *)e->argv);
	return !strcmp(base(a0), name);
}

/* p forked a child while it ran its image i (before its next kept image) */
static int forked_in_image(const struct tza_proc *p, uint32_t i)
{
	uint64_t from = p->execs[i].ts_ns;
	uint64_t to = i + 1 < p->nexecs ? p->execs[i + 1].ts_ns : UINT64_MAX;
	for (const struct tza_proc *c = p->first_child; c; c = c->next_sibling)
		if (c->start_ns >= from && c->start_ns < to)
			return 1;
	return 0;
}

/* p's image i, followed by a later image, only set something up and exec'd */
static int is_passthrough(const struct tza_proc *p, uint32_t i, const char *tool)
{
	const struct tza_exec *e = &p->execs[i];
	const char *bn = e->ctx->exe && *e->ctx->exe ? base(e->ctx->exe) : "";
	for (size_t k = 0; k < sizeof(passthrough) / sizeof(passthrough[0]); k++)
		if (!strcmp(bn, passthrough[k]))
			return 1;
	/* an interpreter running code from its command line or standard input
	 * (sh -c '...; exec prog', python3 -c): named by itself; unless it
	 * forked a child first (a shell job, bash -c 'a | b; c', whose last
	 * command c the shell execs in its place): it is the job */
	int k = *bn ? rule_for(bn) : -1;
	return k >= 0 && rules[k].kind == R_INTERP && !(e->ctx->script && *e->ctx->script) &&
	       !strcmp(tool, bn) && !forked_in_image(p, i);
}

/*
 * The image of a process of an exec chain that names it: its first image not
 * passed through (is_passthrough), else its last; unless a later image is
 * the program that name stands for (a shim or launcher named after what it
 * execs: pyenv's python3 script ... python3.11 work.py, whose argv[0] is
 * python3) or runs from a memfd (a launcher carrying its program): then the
 * last such image. A script that execs another program at the end (zcat is
 * a /bin/sh script that execs gzip) is named by the script: what was called.
 * *t and *c: its tool and command. Returns its index in p->execs, -1 when
 * out of memory.
 */
/* The first image of p's exec chain that is not a launcher (the first
 * loop of named_image): its index, -1 when out of memory */
static int first_named(const struct tza_proc *p, const char **t, const char **c)
{
	uint32_t i = 0;
	for (;; i++) {
		const struct tza_exec *e = &p->execs[i];
		if (tool_ident(e->ctx->exe, e->ctx->script, e->argv, e->argv_len, t, c) < 0)
			return -1;
		if (i + 1 == p->nexecs || !is_passthrough(p, i, *t))
			return (int)i;
	}
}

static int named_image(const struct tza_proc *p, const char **t, const char **c)
{
	int fi = first_named(p, t, c);
	if (fi < 0)
		return -1;
	uint32_t i = (uint32_t)fi;
	for (uint32_t j = p->nexecs - 1; j > i; j--) {
		const struct tza_exec *e = &p->execs[j];
		const struct tza_exec_ctx *x = e->ctx;
		if ((x->exe && !strncmp(x->exe, "memfd:", 6)) || image_named(e, *t))
			return tool_ident(x->exe, x->script, e->argv, e->argv_len, t, c) < 0 ? -1
											: (int)j;
	}
	return (int)i;
}

const struct tza_exec *tza_proc_naming_image(const struct tza_proc *p)
{
	const char *t, *c;
	if (p->nexecs < 2)
		return p->nexecs ? &p->execs[0] : NULL;
	int i = named_image(p, &t, &c);
	return i < 0 ? &p->execs[p->nexecs - 1] : &p->execs[i];
}

uint64_t tza_proc_tool_peak_rss_kib(const struct tza_proc *p)
{
	uint64_t kib = p->maxrss_kib;
	uint32_t j, from;
	/* no earlier image above the last one's: nothing to name (cheap) */
	for (j = 1; j < p->nexecs; j++)
		if ((p->execs[j].byname_known & (1u << TZA_XB_prev_maxrss_kib)) &&
		    p->execs[j].prev_maxrss_kib > kib)
			break;
	if (j >= p->nexecs)
		return kib;
	const char *t, *c;
	int i = first_named(p, &t, &c);
	from = i < 0 ? p->nexecs - 1 : (uint32_t)i;
	/* image j - 1's peak is in exec j */
	for (j = from + 1; j < p->nexecs; j++)
		if ((p->execs[j].byname_known & (1u << TZA_XB_prev_maxrss_kib)) &&
		    p->execs[j].prev_maxrss_kib > kib)
			kib = p->execs[j].prev_maxrss_kib;
	return kib;
}

/* p is a kernel thread: flagged by a snapshot (EV_STATE_KTHREAD), or forked
 * by one without an exec since (kthreadd's children) */
static int is_kthread(const struct tza_proc *p)
{
	for (int depth = 0; p && !p->nexecs && depth < 64; p = p->parent, depth++)
		if (p->flags & TZA_P_KTHREAD)
			return 1;
	return 0;
}

/*
 * The length of a kernel thread's name without its CPU or instance part:
 * cut at the first '/' (kworker/1:2H, ksoftirqd/0, irq/24-ahci), then
 * trailing digits and a '-', '_' or '.' (kswapd0, kdamond.0, scsi_eh_1,
 * pool_workqueue_ cut at 15 bytes); RCU's threads (rcu_preempt,
 * rcu_tasks_kthre..., rcuc/0, rcuop/1) are one family, "rcu". Never to
 * nothing.
 */
static size_t kthread_name_len(const char *comm, size_t n)
{
	if (n > 3 && !strncmp(comm, "rcu", 3))
		return 3;
	const char *sl = memchr(comm, '/', n);
	size_t k = sl && sl > comm ? (size_t)(sl - comm) : n;
	while (k > 1 && comm[k - 1] >= '0' && comm[k - 1] <= '9')
		k--;
	if (k > 1 && strchr("-_.", comm[k - 1]))
		k--;
	return k;
}

const char *tza_proc_key(struct tza_proc *p, enum tza_by by)
{
	if (by >= TZA_BY_TASK) {
		const struct tza_task *t = p->task;
		const char *k = !t ? NULL : by == TZA_BY_TASK ? t->key : by == TZA_BY_RULE ? t->name
			      : by == TZA_BY_JOB ? t->job : t->container;
		return k ? k : "(none)";
	}
	const struct tza_exec *e = tza_proc_image_inherited(p);
	if (by == TZA_BY_EXE) {
		if (e && e->ctx->exe && *e->ctx->exe)
			return e->ctx->exe;
		by = TZA_BY_TOOL;
	}
	if (!p->key_pair) {
		const char *t, *c;
		if (p->nexecs > 1) {
			if (named_image(p, &t, &c) < 0)
				return "?";
		} else if (e) {
			const struct tza_exec_ctx *x = e->ctx;
			if (tool_ident(x->exe, x->script, e->argv, e->argv_len, &t, &c) < 0)
				return "?";
		} else {
			/* nothing but comm is known: bracketed so it never passes for
			 * an exe; a kernel thread by its name without instance */
			char b[sizeof(p->comm) + 3];
			size_t n = strnlen(p->comm, sizeof(p->comm));
			if (is_kthread(p))
				n = kthread_name_len(p->comm, n);
			b[0] = '[';
			memcpy(b + 1, p->comm, n);
			memcpy(b + 1 + n, "]", 2);
			if (!(t = intern(b)))
				return "?";
			c = t;
		}
		if (!(p->key_pair = pair_id(t, c)))
			return "?";
	}
	const struct kpair *k = &pairs.v[p->key_pair - 1];
	return by == TZA_BY_COMMAND ? k->command : k->tool;
}
