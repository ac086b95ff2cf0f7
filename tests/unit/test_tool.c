/* SPDX-License-Identifier: BSD-2-Clause */
/* test_tool.c - tool identity rules (analyze/tool.c), one case per rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "helper.h"

#include "analyze/tool.h"

struct tcase {
	const char *exe, *script;
	const char *argv; /* arguments separated by '|' */
	const char *tool, *command;
};

static const struct tcase cases[] = {
	/* plain binaries: basename of the resolved exe, never argv[0] or comm */
	{"/usr/bin/true", NULL, "./true", "true", "true"},
	{"/usr/bin/sleep", NULL, "sshd|1", "sleep", "sleep"},
	{"/opt/x/x86_64-linux-gnu-as", NULL, "as|-o|a.o", "x86_64-linux-gnu-as",
	 "x86_64-linux-gnu-as"},
	{"/opt/x/x86_64-linux-gnu-ld", NULL, "ld|a.o", "x86_64-linux-gnu-ld",
	 "x86_64-linux-gnu-ld"},
	/* a memfd (fexecve): argv[0]'s basename when it means something, else
	 * the memfd's own name without a random suffix */
	{"memfd:job", NULL, "job", "job", "job"},
	{"memfd:sealed-91173221a7ea (deleted)", NULL, "/opt/bin/worker|x", "worker", "worker"},
	{"memfd:sealed-91173221a7ea (deleted)", NULL, "/proc/self/fd/3|x", "sealed", "sealed"},
	{"memfd:sealed-91173221a7ea (deleted)", NULL, "", "sealed", "sealed"},
	{"memfd:runc_cloned:/proc/self/exe (deleted)", NULL, "/dev/fd/5",
	 "runc_cloned:_proc_self_exe", "runc_cloned:_proc_self_exe"},
	{"memfd:build-2024 (deleted)", NULL, "/dev/fd/5", "build-2024", "build-2024"},
	{"memfd:x-abcdef", NULL, "memfd:x", "x-abcdef", "x-abcdef"},
	/* a script read from a file descriptor has no name of its own: standard
	 * input is "(stdin script)", another descriptor "(fd script)" */
	{"/usr/bin/bash", NULL, "bash|/dev/fd/3", "bash (fd script)", "bash (fd script)"},
	{"/usr/bin/bash", NULL, "bash|/dev/fd/63|x", "bash (fd script)", "bash (fd script)"},
	{"/usr/bin/bash", NULL, "bash|/proc/self/fd/0", "bash (stdin script)",
	 "bash (stdin script)"},
	{"/usr/bin/dash", NULL, "sh|/proc/4242/fd/5", "dash (fd script)", "dash (fd script)"},
	{"/usr/bin/python3.11", NULL, "python3|/dev/stdin", "python3.11 (stdin script)",
	 "python3.11 (stdin script)"},
	{"/usr/bin/bash", "/dev/fd/4", "bash|/dev/fd/4", "bash (fd script)", "bash (fd script)"},
	/* the script on standard input by argument: -, a shell's -s, awk -f - */
	{"/usr/bin/python3.11", NULL, "python3|-u|-|a", "python3.11 (stdin script)",
	 "python3.11 (stdin script)"},
	{"/usr/bin/perl", NULL, "perl|-w|-", "perl (stdin script)", "perl (stdin script)"},
	{"/usr/bin/ruby3.1", NULL, "ruby|-", "ruby3.1 (stdin script)", "ruby3.1 (stdin script)"},
	{"/usr/bin/node", NULL, "node|-", "node (stdin script)", "node (stdin script)"},
	{"/usr/lib/R/bin/Rscript", NULL, "Rscript|--vanilla|-", "Rscript (stdin script)",
	 "Rscript (stdin script)"},
	{"/usr/bin/bash", NULL, "bash|-s|a|b", "bash (stdin script)", "bash (stdin script)"},
	{"/usr/bin/dash", NULL, "sh|-es", "dash (stdin script)", "dash (stdin script)"},
	{"/usr/bin/zsh", NULL, "zsh|-o|errexit|-s", "zsh (stdin script)", "zsh (stdin script)"},
	{"/usr/bin/mawk", NULL, "awk|-f|-|in.txt", "mawk (stdin script)", "mawk (stdin script)"},
	{"/usr/bin/gawk", NULL, "awk|-F|:|-f|/w/sum.awk|x", "sum.awk", "sum.awk"},
	{"/usr/bin/gawk", NULL, "awk|{print}|x", "gawk", "gawk"},
	/* a shell's "-" ends its options: the script follows, or it reads
	 * standard input like an interactive shell (named by the shell) */
	{"/usr/bin/bash", NULL, "bash|-", "bash", "bash"},
	{"/usr/bin/bash", NULL, "bash|-|run.sh", "run.sh", "run.sh"},
	/* look-alikes keep their basename */
	{"/usr/bin/bash", NULL, "bash|/dev/fd/x.sh", "x.sh", "x.sh"},
	{"/usr/bin/bash", NULL, "bash|/proc/12/fdinfo/3", "3", "3"},
	{"/usr/bin/bash", NULL, "bash|/data/fd/3", "3", "3"},
	{"/usr/bin/sh", NULL, "", "sh", "sh"},
	/* python */
	{"/usr/bin/python3.11", NULL, "python3|script.py|a", "script.py", "script.py"},
	{"/usr/bin/python3.11", NULL, "python3|-u|-W|ignore|/x/y/run_me.py", "run_me.py",
	 "run_me.py"},
	{"/usr/bin/python3.11", NULL, "python3|-m|pip|install|x", "pip", "pip install"},
	{"/usr/bin/python3.11", NULL, "python3|-c|print(1)", "python3.11", "python3.11"},
	{"/usr/bin/python3.11", NULL, "python3", "python3.11", "python3.11"},
	{"/usr/bin/pypy3", NULL, "pypy3|--|t.py", "t.py", "t.py"},
	/* #! script through env: final image python3, kernel-rewritten argv */
	{"/usr/bin/python3.11", NULL, "python3|./p.py", "p.py", "p.py"},
	/* gatk is a python script with subcommands */
	{"/usr/bin/python3.11", "/opt/gatk/gatk", "/usr/bin/python3|/opt/gatk/gatk|HaplotypeCaller|-R|x",
	 "gatk", "gatk HaplotypeCaller"},
	/* perl, ruby, node, Rscript, R */
	{"/usr/bin/perl", NULL, "perl|-w|-I|lib|tool.pl|x", "tool.pl", "tool.pl"},
	{"/usr/bin/perl", NULL, "perl|-e|print 1", "perl", "perl"},
	{"/usr/bin/ruby3.1", NULL, "ruby|-r|json|s.rb", "s.rb", "s.rb"},
	{"/usr/bin/node", NULL, "node|--require|x|app.js|serve", "app.js", "app.js"},
	{"/usr/bin/node", NULL, "node|-e|1", "node", "node"},
	{"/usr/lib/R/bin/Rscript", NULL, "Rscript|--vanilla|plot.R", "plot.R", "plot.R"},
	{"/usr/lib/R/bin/exec/R", NULL, "/usr/lib/R/bin/exec/R|--no-echo|--no-restore|--file=plot.R",
	 "plot.R", "plot.R"},
	{"/usr/lib/R/bin/exec/R", NULL, "R|-f|an.R", "an.R", "an.R"},
	{"/usr/lib/R/bin/exec/R", NULL, "R", "R", "R"},
	/* java: jar, main class, module */
	{"/usr/lib/jvm/java-17/bin/java", NULL, "java|-Xmx4g|-jar|/opt/gatk.jar|HaplotypeCaller",
	 "gatk.jar", "gatk.jar HaplotypeCaller"},
	{"/usr/lib/jvm/java-17/bin/java", NULL, "java|-jar|picard.jar|SortSam|I=a.bam", "picard.jar",
	 "picard.jar SortSam"},
	{"/usr/lib/jvm/java-17/bin/java", NULL, "java|-cp|a.jar:b.jar|-Dx=1|org.example.Main|in",
	 "org.example.Main", "org.example.Main"},
	{"/usr/lib/jvm/java-17/bin/java", NULL, "java|-m|app/org.x.App", "org.x.App", "org.x.App"},
	/* shells running a script, or -c */
	{"/usr/bin/dash", "./run.sh", "/bin/sh|./run.sh|a|b", "run.sh", "run.sh"},
	{"/usr/bin/bash", NULL, "bash|-e|-o|pipefail|/w/stage2.sh", "stage2.sh", "stage2.sh"},
	{"/usr/bin/dash", NULL, "sh|-c|true", "dash", "dash"},
	{"/usr/bin/bash", NULL, "bash|-ec|x", "bash", "bash"},
	{"/usr/bin/zsh", NULL, "zsh|job.zsh", "job.zsh", "job.zsh"},
	/* a #! script whose interpreter has no rule: named by the script */
	{"/usr/bin/gawk", "/w/sum.awk", "awk|-f|/w/sum.awk|x", "sum.awk", "sum.awk"},
	{"/usr/bin/tool-x", "/w/my-script", "/usr/bin/tool-x|/w/my-script|arg", "my-script",
	 "my-script"},
	/* the dynamic loader: the program it runs, identified again */
	{"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", NULL,
	 "/lib64/ld-linux-x86-64.so.2|/usr/bin/sleep|0.2", "sleep", "sleep"},
	{"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", NULL,
	 "ld.so|--library-path|/x|/usr/bin/python3|s.py", "s.py", "s.py"},
	{"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", NULL, "ld.so|--list|/bin/ls",
	 "ld-linux-x86-64.so.2", "ld-linux-x86-64.so.2"},
	/* busybox applets */
	{"/bin/busybox", NULL, "sh|x.sh", "x.sh", "x.sh"},
	{"/bin/busybox", NULL, "busybox|gzip|-d", "gzip", "gzip"},
	/* subcommands */
	{"/usr/bin/samtools", NULL, "samtools|sort|-o|x.bam|y.bam", "samtools", "samtools sort"},
	{"/usr/bin/samtools", NULL, "samtools|index|x.bam", "samtools", "samtools index"},
	{"/usr/bin/bwa", NULL, "bwa|mem|-t|4|ref.fa|r.fq", "bwa", "bwa mem"},
	{"/usr/bin/bcftools", NULL, "bcftools|call|-mv", "bcftools", "bcftools call"},
	{"/usr/bin/git", NULL, "git|commit|-m|x", "git", "git commit"},
	{"/usr/bin/samtools", NULL, "samtools|--version", "samtools", "samtools"},
	{"/usr/bin/minimap2", NULL, "minimap2|ref.fa|r.fq", "minimap2", "minimap2"},
	/* a wrapper that did not exec onward stays itself */
	{"/usr/bin/env", NULL, "env|PATH=/nx|sleep|0", "env", "env"},
	/* nothing known */
	{NULL, NULL, "", "?", "?"},
	{NULL, NULL, "/opt/bin/foo|x", "foo", "foo"},
};

static uint8_t *mkargv(const char *s, uint32_t *len)
{
	size_t n = strlen(s);
	uint8_t *b = malloc(n + 1);
	memcpy(b, s, n + 1);
	for (size_t i = 0; i < n; i++)
		if (b[i] == '|')
			b[i] = 0;
	*len = n ? (uint32_t)n + 1 : 0;
	return b;
}

static void test_rules(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct tcase *c = &cases[i];
		uint32_t len;
		uint8_t *av = mkargv(c->argv, &len);
		char *tool = NULL, *cmd = NULL;
		assert_int_equal(tza_tool_name(c->exe, c->script, av, len, &tool, &cmd), 0);
		if (strcmp(tool, c->tool) || strcmp(cmd, c->command))
			fail_msg("case %zu (%s | %s): got tool '%s' command '%s', want '%s' '%s'", i,
				 c->exe ? c->exe : "(null)", c->argv, tool, cmd, c->tool, c->command);
		free(tool);
		free(cmd);
		free(av);
	}
}

/* argv cut without a final NUL (truncated) and hostile bytes never crash */
static void test_truncated_argv(void **state)
{
	(void)state;
	const uint8_t av[] = {'p', 'y', 0, 's', 'c', 'r', 'i', 'p', 't', '.', 'p'};
	char *tool, *cmd;
	assert_int_equal(tza_tool_name("/usr/bin/python3", NULL, av, sizeof(av), &tool, &cmd), 0);
	assert_string_equal(tool, "script.p");
	free(tool);
	free(cmd);
	const uint8_t bad[] = {0xff, 0xfe, 0, 0, 0, 0x01};
	assert_int_equal(tza_tool_name("/usr/bin/samtools", NULL, bad, sizeof(bad), &tool, &cmd), 0);
	assert_string_equal(tool, "samtools");
	assert_string_equal(cmd, "samtools");
	free(tool);
	free(cmd);
}

TEST_MAIN(NULL, NULL, cmocka_unit_test(test_rules), cmocka_unit_test(test_truncated_argv))
