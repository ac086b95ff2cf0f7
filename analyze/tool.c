/*
 * tool.c - tool identity (tool.h). One rule table: add a line to teach the
 * analyzer a new interpreter, loader or tool with subcommands.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
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
		    int depth, struct ident *id);

/* Shell option clusters: "-ec" means -e -c. */
static int shell_inline(const char *opt)
{
	return opt[0] == '-' && opt[1] != '-' && strchr(opt + 1, 'c');
}

static int scan_interp(const struct rule *r, const char *bn, const struct args *a, int off,
		       struct ident *id)
{
	int shell = r->inline_opts && !strcmp(r->inline_opts, "-c") && in_list(r->argopts, "-o");
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
			id->name = base(s);
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
			return identify(s, NULL, a, i, depth + 1, id);
		if (!strcmp(s, "--list") || !strcmp(s, "--verify") || !strcmp(s, "--help"))
			return 0;
		if (in_list(r->argopts, s))
			i++;
	}
	return 0;
}

static int identify(const char *exe, const char *script, const struct args *a, int off,
		    int depth, struct ident *id)
{
	const char *bn = exe && *exe ? base(exe) : "";
	if (!*bn && off < a->ac)
		bn = base(a->av[off]);
	if (depth < 4) {
		for (size_t k = 0; k < sizeof(rules) / sizeof(rules[0]); k++) {
			const struct rule *r = &rules[k];
			if (fnmatch(r->glob, bn, 0))
				continue;
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
					ok = identify(a->av[off], NULL, a, off, depth + 1, id);
				else if (off + 1 < a->ac)
					ok = identify(a->av[off + 1], NULL, a, off + 1, depth + 1, id);
				break;
			}
			if (ok)
				return 1;
			break;
		}
	}
	if (script && *script) {
		id->name = base(script);
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

static int has_subcommands(const char *tool)
{
	for (size_t k = 0; k < sizeof(subcmd_tools) / sizeof(subcmd_tools[0]); k++)
		if (!fnmatch(subcmd_tools[k], tool, 0))
			return 1;
	return 0;
}

int tza_tool_name(const char *exe, const char *script, const uint8_t *argv, uint32_t argv_len,
		  char **tool, char **command)
{
	struct args a;
	a.ac = 0;
	a.buf = malloc((size_t)argv_len + 1);
	if (!a.buf)
		return -1;
	if (argv_len)
		memcpy(a.buf, argv, argv_len);
	a.buf[argv_len] = 0;
	for (uint32_t i = 0; i < argv_len && a.ac < MAX_ARGS;) {
		a.av[a.ac++] = a.buf + i;
		i += (uint32_t)strlen(a.buf + i) + 1;
	}
	struct ident id = {NULL, 0};
	if (!identify(exe, script, &a, 0, 0, &id))
		id.name = "?";
	const char *name = *id.name ? id.name : "?";
	*tool = strdup(name);
	if (id.rest > 0 && id.rest < a.ac && has_subcommands(name) && is_word(a.av[id.rest])) {
		size_t n = strlen(name) + strlen(a.av[id.rest]) + 2;
		*command = malloc(n);
		if (*command)
			snprintf(*command, n, "%s %s", name, a.av[id.rest]);
	} else {
		*command = strdup(name);
	}
	free(a.buf);
	if (!*tool || !*command) {
		free(*tool);
		free(*command);
		return -1;
	}
	return 0;
}

const char *tza_proc_key(struct tza_proc *p, enum tza_by by)
{
	const struct tza_exec *e = tza_proc_image_inherited(p);
	if (by == TZA_BY_EXE) {
		if (e && e->exe && *e->exe)
			return e->exe;
		by = TZA_BY_TOOL;
	}
	if (!p->tool) {
		char *t = NULL, *c = NULL;
		if (e) {
			if (tza_tool_name(e->exe, e->script, e->argv, e->argv_len, &t, &c) < 0)
				return "?";
		} else {
			/* nothing but comm is known: bracketed so it never passes for an exe */
			size_t n = strnlen(p->comm, sizeof(p->comm));
			t = malloc(n + 3);
			if (!t)
				return "?";
			snprintf(t, n + 3, "[%.*s]", (int)n, p->comm);
			c = strdup(t);
			if (!c) {
				free(t);
				return "?";
			}
		}
		p->tool = t;
		p->command = c;
	}
	return by == TZA_BY_COMMAND ? p->command : p->tool;
}
