/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_taskpath_hosts.c - the path of tasks across hosts
 * (analyze/taskpath_hosts.h): the binding predecessor (the one that ended
 * last); the edge rules between hosts (data within
 * the clocks' bound, a negative wait; a late writer; time adjacency only
 * into a task without records; the process-tree rule on one host), the
 * sums, and the JSON it prints, on hand-made tasks of two hosts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <json-c/json.h>

#include "analyze/taskpath_hosts.h"
#include "helper.h"

static char **strv(const char *s)
{
	char **v = calloc(2, sizeof(*v));
	assert_non_null(v);
	v[0] = strdup(s);
	return v;
}

/* a task: host, its index there, wall start/end, its root's parent (-1
 * none) and that one's ancestry (one level), its input and output (NULL:
 * no records) */
static void add(struct tza_htasks *l, const char *key, uint32_t host, uint32_t idx, int64_t w0,
		int64_t w1, int64_t parent, const char *in, const char *out)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->t = realloc(l->t, l->cap * sizeof(*l->t));
		assert_non_null(l->t);
	}
	struct tza_htask *h = &l->t[l->n++];
	memset(h, 0, sizeof(*h));
	*h = (struct tza_htask){.host = host,
				.idx = idx,
				.w0 = w0,
				.w1 = w1,
				.kind = "generic",
				.pid = 100 + (uint32_t)l->n,
				.parent = parent};
	h->key = strdup(key);
	h->id = strdup(key);
	h->rule = strdup(key);
	if (parent >= 0) {
		h->anc = calloc(1, sizeof(*h->anc));
		h->anc[h->nanc++] = (uint32_t)parent;
	}
	if (in || out) {
		h->io = 1;
		if (in) {
			h->in = strv(in);
			h->nin = 1;
		}
		if (out) {
			h->out = strv(out);
			h->nout = 1;
		}
	}
}

/* The two hosts' tasks (times in ns from 1000; the run 1000..2000) */
static void tasks(struct tza_htasks *l)
{
	memset(l, 0, sizeof(*l));
	add(l, "E", 1, 3, 1550, 1800, 9, NULL, NULL);  /* ends last; no records */
	add(l, "A", 0, 0, 1000, 1100, 7, NULL, "a");   /* writes a */
	add(l, "B", 1, 0, 1097, 1300, 8, "a", "b");    /* reads a, 3 ns before A ends */
	add(l, "L", 1, 1, 1050, 1060, 9, "a", NULL);   /* reads a long before A ends */
	add(l, "C", 0, 1, 1400, 1500, 7, NULL, NULL);  /* no records, A's sibling */
	add(l, "D", 1, 2, 1600, 1700, 8, "zzz", NULL); /* records: no writer of zzz */
}

static json_object *run_json(struct tza_htasks *l, int64_t bound)
{
	static const char *const names[] = {"h0", "h1"}, *const traces[] = {"h0.tz", "h1.tz"};
	struct tza_hosts_run run = {.hostname = names,
				    .trace = traces,
				    .nhosts = 2,
				    .r0 = 1000,
				    .r1 = 2000,
				    .bound_ns = bound,
				    .note = "n",
				    .by = TZA_BY_TASK};
	struct memout m;
	FILE *f = memout_open(&m);
	assert_int_equal(tza_taskpath_hosts(f, l, &run, 1), 0);
	char *s = memout_close(&m);
	json_object *o = json_tokener_parse(s);
	assert_non_null(o);
	free(s);
	return o;
}

static json_object *get(json_object *o, const char *k)
{
	json_object *v;
	assert_true(json_object_object_get_ex(o, k, &v));
	return v;
}

static int64_t ns(json_object *o, const char *k)
{
	return (int64_t)(json_object_get_double(get(o, k)) * 1e9 +
			 (json_object_get_double(get(o, k)) < 0 ? -0.5 : 0.5));
}

/* path[i]'s task and edge ("-" for null) */
static void step(json_object *path, size_t i, const char *task, const char *host, const char *edge)
{
	json_object *s = json_object_array_get_idx(path, i);
	assert_non_null(s);
	assert_string_equal(json_object_get_string(get(s, "task")), task);
	assert_string_equal(json_object_get_string(get(s, "host")), host);
	json_object *e = get(s, "edge");
	assert_string_equal(e ? json_object_get_string(e) : "-", edge);
}

/* the path is n steps, want[i] = {task, host, edge} as step() takes them */
static void path_is(json_object *path, size_t n, const char *const want[][3])
{
	assert_int_equal(json_object_array_length(path), n);
	for (size_t i = 0; i < n; i++)
		step(path, i, want[i][0], want[i][1], want[i][2]);
}

/* the JSON of the two hosts' tasks() with this clock bound (ns) */
static json_object *run_tasks(int64_t bound)
{
	struct tza_htasks l;
	tasks(&l);
	json_object *o = run_json(&l, bound);
	tza_htasks_free(&l);
	return o;
}

static void test_within_bound(void **st)
{
	(void)st;
	json_object *o = run_tasks(5);
	json_object *p = get(o, "path"), *e = get(o, "edges");
	/* A -> B by data within the bound (wait -3 ns), B -> C by time alone
	 * (C has no records; B on the other host), C -> E the same; D has
	 * records naming no writer: no predecessor, not on the path */
	static const char *const want[][3] = {{"A", "h0", "-"},
					      {"B", "h1", "data"},
					      {"C", "h0", "adjacent"},
					      {"E", "h1", "adjacent"}};
	path_is(p, 4, want);
	assert_int_equal(ns(json_object_array_get_idx(p, 1), "wait_s"), -3);
	assert_int_equal(json_object_get_int(get(e, "data")), 1);
	assert_int_equal(json_object_get_int(get(e, "data_between_hosts")), 1);
	assert_int_equal(json_object_get_int(get(e, "late")), 1);     /* A -> L */
	assert_int_equal(json_object_get_int(get(e, "time")), 2);     /* A -> C, L -> E */
	assert_int_equal(json_object_get_int(get(e, "adjacent")), 4); /* B, L -> C; A, C -> E */
	assert_int_equal(ns(o, "wall_s"), 100 + 203 + 100 + 250);
	assert_int_equal(ns(o, "wait_s"), -3 + 100 + 50);
	assert_int_equal(ns(o, "before_first_s"), 0);
	assert_int_equal(ns(o, "after_last_s"), 200);
	assert_int_equal(ns(o, "makespan_s"), 1000);
	assert_int_equal(json_object_array_length(get(o, "off_path")), 0);
	assert_string_equal(json_object_get_string(get(o, "order")), "task_edges");
	json_object_put(o);
}

static void test_exact_clocks(void **st)
{
	(void)st;
	/* bound 0: A ended after B started, so that edge is late too; B then
	 * has no predecessor and starts the path: B -> C -> E (of C's
	 * predecessors A, L and B, B ended last, at 1300) */
	json_object *o = run_tasks(0);
	json_object *p = get(o, "path"), *e = get(o, "edges");
	static const char *const want[][3] = {
	    {"B", "h1", "-"}, {"C", "h0", "adjacent"}, {"E", "h1", "adjacent"}};
	path_is(p, 3, want);
	assert_int_equal(json_object_get_int(get(e, "data")), 0);
	assert_int_equal(json_object_get_int(get(e, "late")), 2);
	assert_int_equal(ns(o, "before_first_s"), 97);
	/* the identity, exact */
	assert_int_equal(ns(o, "before_first_s") + ns(o, "wall_s") + ns(o, "wait_s") +
			     ns(o, "after_last_s"),
			 1000);
	json_object_put(o);
}

/* one host with no task on the path is named off it */
static void test_off_path(void **st)
{
	(void)st;
	struct tza_htasks l;
	memset(&l, 0, sizeof(l));
	add(&l, "X", 1, 0, 1100, 1900, -1, NULL, NULL);
	json_object *o = run_json(&l, 0);
	json_object *off = get(o, "off_path");
	assert_int_equal(json_object_array_length(off), 1);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(off, 0)), "h0");
	step(get(o, "path"), 0, "X", "h1", "-");
	json_object_put(o);
	tza_htasks_free(&l);
}

TEST_MAIN(NULL, NULL, cmocka_unit_test(test_within_bound), cmocka_unit_test(test_exact_clocks),
	  cmocka_unit_test(test_off_path))
