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
 * module: the option naming a module that is the tool (python -m pip).
 */
static const struct rule {
	const char *glob;
	enum rule_kind kind;
	const char *argopts, *inline_opts, *module;
} rules[] = {
	{"python*", R_INTERP, "-W -X -Q", "-c", "-m"},
	{"pypy*", R_INTERP, "-W -X -Q", "-c", "-m"},
	{"perl*", R_INTERP, "-I -M -x", "-e -E", NULL},
	{"ruby*", R_INTERP, "-I -r -C -E", "-e", NULL},
	{"node", R_INTERP, "-r --require --import --loader", "-e --eval -p --print", NULL},
	{"nodejs", R_INTERP, "-r --require --import --loader", "-e --eval -p --print", NULL},
	{"Rscript", R_INTERP, "", "-e", NULL},
	{"R", R_RLANG, NULL, NULL, NULL},
	{"java", R_JAVA, "-cp -classpath --class-path -p --module-path --add-modules", NULL, NULL},
	{"sh", R_INTERP, "-o +o -O +O --rcfile --init-file", "-c", NULL},
	{"bash", R_INTERP, "-o +o -O +O --rcfile --init-file", "-c", NULL},
	{"dash", R_INTERP, "-o +o", "-c", NULL},
	{"zsh", R_INTERP, "-o +o", "-c", NULL},
	{"ksh*", R_INTERP, "-o +o", "-c", NULL},
	{"mksh", R_INTERP, "-o +o", "-c", NULL},
	{"ash", R_INTERP, "-o +o", "-c", NULL},
	{"tclsh*", R_INTERP, "", "", NULL},
	{"lua*", R_INTERP, "-l", "-e", NULL},
	{"php*", R_INTERP, "-c -d -z", "-r", NULL},
	{"awk", R_INTERP, "-F -v", "", NULL}, /* only "awk -f prog" names a script */
	{"ld-linux*.so*", R_LOADER,
	 "--library-path --preload --argv0 --audit --inhibit-rpath --glibc-hwcaps-prepend "
	 "--glibc-hwcaps-mask",
	 NULL, NULL},
	{"ld-*.so*", R_LOADER, "--library-path --preload --argv0 --audit --inhibit-rpath", NULL,
	 NULL},
	{"ld.so", R_LOADER, "--library-path --preload --argv0 --audit --inhibit-rpath", NULL, NULL},
	{"busybox", R_APPLET, NULL, NULL, NULL},
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
	int subcmd; /* has_subcommands(): 0, 1, -1: not asked yet */
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

/*
 * The name of a script an interpreter runs. A script read from a file
 * descriptor (bash /dev/fd/3, bash <(...), /dev/stdin, /proc/self/fd/N,
 * /proc/PID/fd/N: a pipe, a here-document, process substitution) has no
 * name of its own: it is "INTERP (stdin script)". Else the path's basename.
 */
static const char *script_name(const char *interp, const char *path)
{
	const char *p = path, *fd = NULL;
	char buf[128];

	if (!strncmp(p, "/dev/fd/", 8)) {
		fd = p + 8;
	} else if (!strcmp(p, "/dev/stdin")) {
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
	snprintf(buf, sizeof(buf), "%s (stdin script)", interp);
	const char *n = intern(buf);
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

/* Shell option clusters: "-ec" means -e -c. */
static int shell_inline(const char *opt)
{
	return opt[0] == '-' && opt[1] != '-' && strchr(opt + 1, 'c');
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
	int shell = *sh > 0;
	for (int i = off + 1; i < a->ac; i++) {
		const char *s = a->av[i];
		if (!strcmp(s, "--") || !strcmp(s, "-")) {
			if (!strcmp(s, "-") || i + 1 >= a->ac)
				return 0;
			id->name = base(a->av[i + 1]);
			id->rest = i + 2;
			return 1;
		}
		if (s[0] != '-' && !(shell && s[0] == '+')) {
			id->name = script_name(bn, s);
			id->rest = i + 1;
			return 1;
		}
		if (in_list(r->inline_opts, s) || (shell && shell_inline(s)))
			return 0;
		if (r->module && !strcmp(s, r->module) && i + 1 < a->ac) {
			id->name = a->av[i + 1];
			id->rest = i + 2;
			return 1;
		}
		if (!strcmp(bn, "awk") && !strcmp(s, "-f") && i + 1 < a->ac) {
			id->name = base(a->av[i + 1]);
			id->rest = i + 2;
			return 1;
		}
		if (!strcmp(bn, "awk"))
			return 0; /* awk 'program' file: awk itself */
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

/* tza_tool_name with interned results; -1 when out of memory. */
static int tool_ident(const char *exe, const char *script, const uint8_t *argv,
		      uint32_t argv_len, const char **tool, const char **command)
{
	/* an executable run from a memfd (fexecve) is named by the memfd's
	 * own name: "memfd:job (deleted)" is "job" */
	char mbuf[256];
	if (exe && !strncmp(exe, "memfd:", 6) && exe[6]) {
		const char *e = strstr(exe + 6, " (deleted)");
		size_t n = e ? (size_t)(e - exe - 6) : strlen(exe + 6);
		snprintf(mbuf, sizeof(mbuf), "%.*s", (int)n, exe + 6);
		for (char *c = mbuf; *c; c++)
			if (*c == '/')
				*c = '_';
		exe = mbuf;
	}
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
	if (e->exe && *e->exe && !strcmp(base(e->exe), name))
		return 1;
	if (!e->argv_len)
		return 0;
	size_t n = strnlen((const char *)e->argv, e->argv_len);
	char a0[256];
	snprintf(a0, sizeof(a0), "%.*s", (int)(n < 255 ? n : 255), (const char *)e->argv);
	return !strcmp(base(a0), name);
}

/* e, followed by a later image, only set something up and exec'd */
static int is_passthrough(const struct tza_exec *e, const char *tool)
{
	const char *bn = e->exe && *e->exe ? base(e->exe) : "";
	for (size_t i = 0; i < sizeof(passthrough) / sizeof(passthrough[0]); i++)
		if (!strcmp(bn, passthrough[i]))
			return 1;
	/* an interpreter running code from its command line or standard input
	 * (sh -c '...; exec prog', python3 -c): named by itself */
	int k = *bn ? rule_for(bn) : -1;
	return k >= 0 && rules[k].kind == R_INTERP && !(e->script && *e->script) &&
	       !strcmp(tool, bn);
}

/*
 * The name of a process of an exec chain: that of its first image not
 * passed through (is_passthrough), else of its last; unless a later image
 * is the program that name stands for (a shim or launcher named after what
 * it execs: pyenv's python3 script ... python3.11 work.py, whose argv[0] is
 * python3) or runs from a memfd (a launcher carrying its program): then the
 * last such image's. A script that execs another program at the end (zcat
 * is a /bin/sh script that execs gzip) is named by the script: what was
 * called. *t and *c: tool and command. Returns -1 when out of memory.
 */
static int named_image(const struct tza_proc *p, const char **t, const char **c)
{
	uint32_t i = 0;
	for (;; i++) {
		const struct tza_exec *e = &p->execs[i];
		if (tool_ident(e->exe, e->script, e->argv, e->argv_len, t, c) < 0)
			return -1;
		if (i + 1 == p->nexecs || !is_passthrough(e, *t))
			break;
	}
	for (uint32_t j = p->nexecs - 1; j > i; j--) {
		const struct tza_exec *e = &p->execs[j];
		if ((e->exe && !strncmp(e->exe, "memfd:", 6)) || image_named(e, *t))
			return tool_ident(e->exe, e->script, e->argv, e->argv_len, t, c);
	}
	return 0;
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
		if (e && e->exe && *e->exe)
			return e->exe;
		by = TZA_BY_TOOL;
	}
	if (!p->tool_key) {
		const char *t, *c;
		if (p->nexecs > 1) {
			if (named_image(p, &t, &c) < 0)
				return "?";
		} else if (e) {
			if (tool_ident(e->exe, e->script, e->argv, e->argv_len, &t, &c) < 0)
				return "?";
		} else {
			/* nothing but comm is known: bracketed so it never passes for an exe */
			char b[sizeof(p->comm) + 3];
			size_t n = strnlen(p->comm, sizeof(p->comm));
			b[0] = '[';
			memcpy(b + 1, p->comm, n);
			memcpy(b + 1 + n, "]", 2);
			if (!(t = intern(b)))
				return "?";
			c = t;
		}
		p->tool_key = t;
		p->command_key = c;
	}
	return by == TZA_BY_COMMAND ? p->command_key : p->tool_key;
}
