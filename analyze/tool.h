/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tool.h - tool identity: the unit users think in (see tool.c's rule table
 * and docs/tracer-analyze.md "Tool identity").
 *
 *   exe     the final image's absolute path;
 *   tool    the program that does the work: an interpreter (python*, perl,
 *           Rscript/R, ruby, node, java, sh/bash/dash/zsh...) is named by its
 *           script, module or jar; the dynamic loader (ld-linux*.so*) by the
 *           program it runs; busybox by its applet; a #! script by its script;
 *           anything else by the basename of its exe. Never by comm. A
 *           script read from standard input (python3 -, bash -s,
 *           /dev/stdin) is "INTERP (stdin script)", from another descriptor
 *           (bash /dev/fd/3, bash <(...)) "INTERP (fd script)"; a memfd
 *           program is named by argv[0] when it means something, else by
 *           the memfd's name without a random suffix.
 *   command tool plus its subcommand for tools that have them ("samtools
 *           sort", "bwa mem", "gatk HaplotypeCaller", "git commit", any jar's
 *           first plain argument, "pip install" from python -m pip).
 */
#ifndef TRACER_TOOL_H
#define TRACER_TOOL_H

#include <stdint.h>

/*
 * Name the tool and command of one image. exe: the image's resolved path
 * (may be NULL or ""); script: the #! script path or NULL; argv: exact argv
 * bytes (NUL after each argument; may be cut). On success returns 0 and two
 * malloc'd strings the caller frees; -1 when out of memory.
 */
int tza_tool_name(const char *exe, const char *script, const uint8_t *argv, uint32_t argv_len,
		  char **tool, char **command);

#endif /* TRACER_TOOL_H */
