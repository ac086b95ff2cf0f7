/*
 * stubs.c - TEMPORARY during initial development: weak placeholders so the
 * binary links while subcommands are being written. A real cmd_X overrides
 * its weak twin. This file is deleted before the first landing.
 */
#include "analyze.h"

#define STUB(fn, name)                                                                             \
	__attribute__((weak)) int fn(int argc, char **argv)                                        \
	{                                                                                          \
		tza_err("'%s' is not built yet", name);                                            \
		return TZA_EXIT_FAIL;                                                              \
	}
STUB(cmd_info, "info")
STUB(cmd_verify, "verify")
STUB(cmd_recover, "recover")
STUB(cmd_cat, "cat")
STUB(cmd_summary, "summary")
STUB(cmd_tree, "tree")
STUB(cmd_top, "top")
STUB(cmd_critical_path, "critical-path")
STUB(cmd_export, "export")
STUB(cmd_slice, "slice")
STUB(cmd_diff, "diff")
STUB(cmd_plot, "plot")
STUB(cmd_bundle, "bundle")
