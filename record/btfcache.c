/* SPDX-License-Identifier: BSD-2-Clause */
/* btfcache.c - the cached CO-RE BTF: checked, used, built (btfcache.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/btf.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "btfcache.h"
#include "common/thread.h"

#define CACHE_DIR_DEFAULT "/var/cache/tracer-record"
#define CACHE_FILE "vmlinux.btf"
#define CACHE_ENUM "tracer_record_btf_cache"
#define CACHE_FORMAT 1
#define CACHE_MAX (16u << 20) /* a cache is some 100 KB */
#define KERNEL_BTF "/sys/kernel/btf/vmlinux"
#define TPS_MAX 8

/* The kernel types the BPF programs cast to (bpf_rdonly_cast with
 * bpf_core_type_id_kernel(): bpf/common.bpf.h UNTRUSTED, exit.bpf.h,
 * path.bpf.h, sample.bpf.c). Their ids in the cache are the kernel's, so
 * that those relocations come out as with the kernel's BTF; test 35 checks
 * that every relocation does. */
#define KT_N 7
static const char *const ktype_names[KT_N] = {
    "task_struct", "linux_binprm", "mount", "dentry", "rb_node", "list_head", "kref",
};
struct btfc {
	char dir[4096];		    /* "" when no usable directory */
	char boot[40];		    /* "boot_" + the boot id's 32 hex digits */
	long long btf_sz;	    /* size of KERNEL_BTF */
	char obj[24];		    /* "obj_" + the BPF object's hash */
	int fd;			    /* the checked cache file, or -1 */
	char path[32];		    /* "/proc/self/fd/N" */
	char tp_names[TPS_MAX][64]; /* tracepoints the cache knows of */
	int tp_have[TPS_MAX];
	int ntp;
	const char *const *tps; /* those a build records */
	int ntps;
	const char *status;
	/* the build */
	struct btf *local;
	pthread_t thread;
	bool building;
	char built[128];
};

size_t btfc_essential_len(const char *name)
{
	size_t n = strlen(name);

	/* an X___Y name, X and Y not underscores: X is what is compared */
	for (long i = (long)n - 5; i >= 0; i--) {
		const char *s = name + i;
		if (s[0] != '_' && s[1] == '_' && s[2] == '_' && s[3] == '_' && s[4] != '_')
			return (size_t)i + 1;
	}
	return n;
}

/* the boot id as "boot_" + 32 hex digits; TRACER_RECORD_TEST_BOOT_ID
 * pretends another boot (tests); 0 or -1 */
static int read_boot(char *out, size_t size)
{
	const char *fake = getenv("TRACER_RECORD_TEST_BOOT_ID");
	char id[64] = "";
	size_t n = 0;

	if (fake && *fake) {
		snprintf(id, sizeof(id), "%s", fake);
	} else {
		FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
		if (!f)
			return -1;
		if (!fgets(id, sizeof(id), f))
			id[0] = 0;
		fclose(f);
	}
	n = (size_t)snprintf(out, size, "boot_");
	for (const char *p = id; *p && *p != '\n'; p++) {
		if (*p == '-')
			continue;
		if (!strchr("0123456789abcdef", *p) || n + 1 >= size)
			return -1;
		out[n++] = *p;
	}
	out[n] = 0;
	return n == 5 + 32 ? 0 : -1;
}

/* DIR is a directory owned by root that no one else may write to */
static int dir_safe(const char *dir)
{
	struct stat st;

	return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 0 &&
		       !(st.st_mode & (S_IWGRP | S_IWOTH))
		   ? 0
		   : -1;
}

#define KEY_MAX 16   /* values of the key enum read at most */
#define KEY_STR 4096 /* bytes of the string section its names may be in */

/* The key enum's values, names in strs; a status or NULL. */
static const char *check_key(struct btfc *c, const struct btf_enum *e, int n, const char *strs,
			     uint32_t nstr)
{
	bool format = false, boot = false, size = false, obj = false;

	for (int i = 0; i < n; i++) {
		if (e[i].name_off >= nstr || !memchr(strs + e[i].name_off, 0, nstr - e[i].name_off))
			return "malformed: key";
		const char *name = strs + e[i].name_off;
		if (!strcmp(name, "format"))
			format = e[i].val == CACHE_FORMAT;
		else if (!strncmp(name, "boot_", 5))
			boot = !strcmp(name, c->boot);
		else if (!strncmp(name, "obj_", 4))
			obj = !strcmp(name, c->obj);
		else if (!strcmp(name, "btf_size"))
			size = (uint32_t)e[i].val == (uint32_t)c->btf_sz;
		else if (!strncmp(name, "tp_", 3) && c->ntp < TPS_MAX &&
			 (e[i].val == 0 || e[i].val == 1)) {
			snprintf(c->tp_names[c->ntp], sizeof(c->tp_names[0]), "%s", name + 3);
			c->tp_have[c->ntp++] = e[i].val;
		}
	}
	if (!format)
		return "another format";
	if (!boot || !size)
		return "stale: another boot or kernel";
	if (!obj)
		return "stale: another recorder";
	return NULL;
}

/*
 * The key of the cache file fd (size bytes) checked: type 1 is the enum
 * CACHE_ENUM, its names first in the string section (the build adds it
 * first), so a few reads do instead of a parse; libbpf parses the whole
 * file at the load (a load that fails with it is tried without). A status
 * or NULL.
 */
static const char *read_key(struct btfc *c, int fd, uint64_t size)
{
	struct btf_header h;
	struct btf_type t;
	struct btf_enum e[KEY_MAX];
	char strs[KEY_STR];

	/* raw BTF of this host's byte order, sections inside the file */
	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) || h.magic != BTF_MAGIC ||
	    h.version != BTF_VERSION || h.hdr_len < sizeof(h) || h.hdr_len > 256 ||
	    (uint64_t)h.hdr_len + h.type_off + h.type_len > size ||
	    (uint64_t)h.hdr_len + h.str_off + h.str_len > size || h.type_len < sizeof(t))
		return "malformed";
	uint64_t types = (uint64_t)h.hdr_len + h.type_off, str = (uint64_t)h.hdr_len + h.str_off;
	uint32_t nstr = h.str_len < KEY_STR ? h.str_len : KEY_STR;
	if (pread(fd, &t, sizeof(t), (off_t)types) != (ssize_t)sizeof(t) || !btf_is_enum(&t) ||
	    btf_vlen(&t) > KEY_MAX || sizeof(t) + btf_vlen(&t) * sizeof(e[0]) > h.type_len ||
	    pread(fd, e, btf_vlen(&t) * sizeof(e[0]), (off_t)(types + sizeof(t))) !=
		(ssize_t)(btf_vlen(&t) * sizeof(e[0])) ||
	    pread(fd, strs, nstr, (off_t)str) != (ssize_t)nstr)
		return "malformed: no key";
	if (t.name_off >= nstr || !memchr(strs + t.name_off, 0, nstr - t.name_off) ||
	    strcmp(strs + t.name_off, CACHE_ENUM))
		return "malformed: no key";
	return check_key(c, e, btf_vlen(&t), strs, nstr);
}

/* Open and check DIR/CACHE_FILE; c->fd set when usable, else c->status. */
static void open_cache(struct btfc *c)
{
	struct stat st;
	int dfd = open(c->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int fd = dfd < 0 ? -1 : openat(dfd, CACHE_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (dfd >= 0)
		close(dfd);
	if (fd < 0) {
		c->status = errno == ENOENT ? "none" : "unreadable";
		return;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)) || st.st_size <= 0 || st.st_size > CACHE_MAX) {
		c->status = "not a regular file of root's";
		close(fd);
		return;
	}
	c->status = read_key(c, fd, (uint64_t)st.st_size);
	if (c->status) {
		c->ntp = 0;
		close(fd);
		return;
	}
	snprintf(c->path, sizeof(c->path), "/proc/self/fd/%d", fd);
	c->fd = fd;
	c->status = "used";
}

struct btfc *btfc_open(const void *obj, size_t obj_size)
{
	struct btfc *c = calloc(1, sizeof(*c));
	const char *dir = getenv("TRACER_RECORD_BTF_CACHE");
	struct stat st;

	if (!c)
		return NULL;
	c->fd = -1;
	if (!dir)
		dir = CACHE_DIR_DEFAULT;
	if (!*dir || !strcmp(dir, "off")) {
		c->status = "off";
		return c;
	}
	if (strlen(dir) >= sizeof(c->dir) - sizeof(CACHE_FILE) - 32) {
		c->status = "directory name too long";
		return c;
	}
	if (read_boot(c->boot, sizeof(c->boot)) || stat(KERNEL_BTF, &st)) {
		c->status = "no boot id or kernel BTF";
		return c;
	}
	c->btf_sz = (long long)st.st_size;
	snprintf(c->obj, sizeof(c->obj), "obj_%016llx",
		 (unsigned long long)XXH3_64bits(obj, obj ? obj_size : 0));
	/* a directory missing is made (its parent must be safe too) */
	if (lstat(dir, &st) && errno == ENOENT && mkdir(dir, 0700) && errno != EEXIST) {
		c->status = "no directory";
		return c;
	}
	if (dir_safe(dir)) {
		c->status = "directory not root's alone";
		return c;
	}
	snprintf(c->dir, sizeof(c->dir), "%s", dir);
	open_cache(c);
	return c;
}

const char *btfc_path(const struct btfc *c) { return c && c->fd >= 0 ? c->path : NULL; }

int btfc_tp(const struct btfc *c, const char *name)
{
	for (int i = 0; c && c->fd >= 0 && i < c->ntp; i++)
		if (!strcmp(c->tp_names[i], name))
			return c->tp_have[i];
	return -1;
}

const char *btfc_status(const struct btfc *c) { return c ? c->status : "off"; }

void btfc_reject(struct btfc *c)
{
	if (!c || c->fd < 0)
		return;
	close(c->fd);
	c->fd = -1;
	c->status = "rejected: the load failed with it";
}

/* ---------------------------------------------------------------- build */

struct builder {
	const struct btf *k; /* the kernel's BTF */
	struct btf *out;
	uint32_t *map; /* kernel id -> out id (0: not copied yet) */
	uint32_t void_ptr;
};

static uint32_t copy_type(struct builder *b, uint32_t kid, int depth);

/* Copy the types a kernel type refers to, as out's ids in ids[]; -1 when
 * one cannot be copied. */
static int copy_refs(struct builder *b, const struct btf_type *t, uint32_t *ids, int depth)
{
	int n = btf_vlen(t);

	if (btf_is_composite(t)) {
		const struct btf_member *m = btf_members(t);
		for (int i = 0; i < n; i++)
			if (!(ids[i] = copy_type(b, m[i].type, depth + 1)) && m[i].type)
				return -1;
	} else if (btf_is_func_proto(t)) {
		const struct btf_param *p = btf_params(t);
		for (int i = 0; i < n; i++)
			if (!(ids[i] = copy_type(b, p[i].type, depth + 1)) && p[i].type)
				return -1;
		ids[n] = copy_type(b, t->type, depth + 1);
		if (!ids[n] && t->type)
			return -1;
	}
	return 0;
}

/* Add the copy of kernel type t (its references copied into ids) to out;
 * its id, or 0 (a kind a CO-RE path never embeds, or libbpf's error). */
static int add_copy(struct builder *b, const struct btf_type *t, const uint32_t *ids)
{
	const char *name = btf__name_by_offset(b->k, t->name_off);
	const char *nm = name && *name ? name : NULL;
	int id = -1, n = btf_vlen(t);

	switch (btf_kind(t)) {
	case BTF_KIND_INT: {
		uint32_t enc = btf_int_encoding(t);
		if (btf_int_offset(t) || btf_int_bits(t) != t->size * 8)
			return 0;
		return btf__add_int(b->out, name, t->size, (int)enc);
	}
	case BTF_KIND_FLOAT:
		return btf__add_float(b->out, name, t->size);
	case BTF_KIND_ARRAY:
		return btf__add_array(b->out, ids[1], ids[0], btf_array(t)->nelems);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: {
		const struct btf_member *m = btf_members(t);
		id = btf_is_struct(t) ? btf__add_struct(b->out, nm, t->size)
				      : btf__add_union(b->out, nm, t->size);
		for (int i = 0; i < n && id > 0; i++) {
			const char *mn = btf__name_by_offset(b->k, m[i].name_off);
			if (btf__add_field(b->out, mn && *mn ? mn : NULL, (int)ids[i],
					   btf_member_bit_offset(t, (uint32_t)i),
					   btf_member_bitfield_size(t, (uint32_t)i)))
				return 0;
		}
		return id;
	}
	case BTF_KIND_ENUM: {
		const struct btf_enum *e = btf_enum(t);
		id = btf__add_enum(b->out, nm, t->size);
		for (int i = 0; i < n && id > 0; i++) {
			int64_t v =
			    btf_kflag(t) ? (int64_t)(int32_t)e[i].val : (int64_t)(uint32_t)e[i].val;
			if (btf__add_enum_value(b->out, btf__name_by_offset(b->k, e[i].name_off),
						v))
				return 0;
		}
		return id;
	}
	case BTF_KIND_ENUM64: {
		const struct btf_enum64 *e = btf_enum64(t);
		id = btf__add_enum64(b->out, nm, t->size, btf_kflag(t));
		for (int i = 0; i < n && id > 0; i++)
			if (btf__add_enum64_value(b->out, btf__name_by_offset(b->k, e[i].name_off),
						  btf_enum64_value(&e[i])))
				return 0;
		return id;
	}
	case BTF_KIND_FWD:
		return btf__add_fwd(b->out, name, btf_kflag(t) ? BTF_FWD_UNION : BTF_FWD_STRUCT);
	case BTF_KIND_TYPEDEF:
		return btf__add_typedef(b->out, name, (int)ids[0]);
	case BTF_KIND_VOLATILE:
		return btf__add_volatile(b->out, (int)ids[0]);
	case BTF_KIND_CONST:
		return btf__add_const(b->out, (int)ids[0]);
	case BTF_KIND_RESTRICT:
		return btf__add_restrict(b->out, (int)ids[0]);
	case BTF_KIND_TYPE_TAG:
		return btf__add_type_tag(b->out, name, (int)ids[0]);
	case BTF_KIND_FUNC_PROTO: {
		const struct btf_param *p = btf_params(t);
		id = btf__add_func_proto(b->out, (int)ids[n]);
		for (int i = 0; i < n && id > 0; i++) {
			const char *pn = btf__name_by_offset(b->k, p[i].name_off);
			if (btf__add_func_param(b->out, pn && *pn ? pn : NULL, (int)ids[i]))
				return 0;
		}
		return id;
	}
	default:
		return 0;
	}
}

/* The copy of kernel type kid in out (copied first if need be): its id,
 * or 0 for void or on failure (kid not 0). */
static uint32_t copy_type(struct builder *b, uint32_t kid, int depth)
{
	const struct btf_type *t;
	uint32_t ids[512], one;
	int id;

	if (!kid || depth > 64)
		return 0;
	if (b->map[kid])
		return b->map[kid];
	t = btf__type_by_id(b->k, kid);
	if (!t)
		return 0;
	if (btf_is_ptr(t)) {
		/* a CO-RE access path never crosses a pointer: what it points to
		 * is left out */
		if (!b->void_ptr) {
			id = btf__add_ptr(b->out, 0);
			b->void_ptr = id > 0 ? (uint32_t)id : 0;
		}
		return b->map[kid] = b->void_ptr;
	}
	if ((btf_is_composite(t) || btf_is_func_proto(t)) && btf_vlen(t) >= 511)
		return 0;
	if (btf_is_array(t)) {
		ids[0] = copy_type(b, btf_array(t)->type, depth + 1);
		ids[1] = copy_type(b, btf_array(t)->index_type, depth + 1);
		if (!ids[0] || !ids[1])
			return 0;
	} else if (btf_is_mod(t) || btf_is_typedef(t) || btf_is_type_tag(t)) {
		one = copy_type(b, t->type, depth + 1);
		if (!one && t->type)
			return 0;
		ids[0] = one;
	} else if (copy_refs(b, t, ids, depth)) {
		return 0;
	}
	id = add_copy(b, t, ids);
	return b->map[kid] = id > 0 ? (uint32_t)id : 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the kinds a CO-RE relocation's root type may have */
static bool root_kind(const struct btf_type *t)
{
	return btf_is_composite(t) || btf_is_any_enum(t) || btf_is_typedef(t) || btf_is_fwd(t) ||
	       btf_is_int(t) || btf_is_float(t);
}

/* The names (essential part) of local's named types, sorted; their count,
 * or -1. */
static long local_names(const struct btf *local, char ***out)
{
	uint32_t n = btf__type_cnt(local);
	char **v = calloc(n, sizeof(*v));
	long k = 0;

	if (!v)
		return -1;
	for (uint32_t i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(local, i);
		const char *name = btf__name_by_offset(local, t->name_off);
		if (!root_kind(t) || !name || !*name)
			continue;
		if (!(v[k] = strndup(name, btfc_essential_len(name))))
			break;
		k++;
	}
	qsort(v, (size_t)k, sizeof(*v), cmp_str);
	*out = v;
	return k;
}

/* Every kernel type named as a local type, and what it embeds, into
 * b->out; 0 or -1. */
static int copy_roots(struct builder *b, const struct btf *local)
{
	char **names = NULL, key[256];
	long nn = local_names(local, &names);
	uint32_t n = btf__type_cnt(b->k);
	int rc = nn < 0 ? -1 : 0;

	for (uint32_t i = 1; i < n && !rc; i++) {
		const struct btf_type *t = btf__type_by_id(b->k, i);
		const char *name = btf__name_by_offset(b->k, t->name_off);
		if (!root_kind(t) || !name || !*name)
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)btfc_essential_len(name), name);
		char *k = key;
		if (bsearch(&k, names, (size_t)nn, sizeof(*names), cmp_str) && !copy_type(b, i, 0))
			rc = -1;
	}
	for (long i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	return rc;
}

/* The key, as the enum CACHE_ENUM, and which tracepoints the kernel has:
 * type 1 of out, its names first in out's strings (read_key); 0 or -1. */
static int add_key(struct btfc *c, struct btf *out, const struct btf *k)
{
	char name[80];

	if (btf__add_enum(out, CACHE_ENUM, 4) <= 0 ||
	    btf__add_enum_value(out, "format", CACHE_FORMAT) ||
	    btf__add_enum_value(out, c->boot, 0) || btf__add_enum_value(out, c->obj, 0) ||
	    btf__add_enum_value(out, "btf_size", (int64_t)(uint32_t)c->btf_sz))
		return -1;
	for (int i = 0; i < c->ntps; i++) {
		char td[80];
		snprintf(td, sizeof(td), "btf_trace_%s", c->tps[i]);
		snprintf(name, sizeof(name), "tp_%s", c->tps[i]);
		if (btf__add_enum_value(out, name,
					btf__find_by_name_kind(k, td, BTF_KIND_TYPEDEF) > 0))
			return -1;
	}
	return 0;
}

/* The kernel id of the one struct named name, 0 when none or several. */
static uint32_t kernel_struct(const struct btf *k, const char *name)
{
	int id = btf__find_by_name_kind(k, name, BTF_KIND_STRUCT);

	for (uint32_t i = id > 0 ? (uint32_t)id + 1 : 0; i && i < btf__type_cnt(k); i++) {
		const struct btf_type *t = btf__type_by_id(k, i);
		if (btf_is_struct(t) && !strcmp(btf__name_by_offset(k, t->name_off), name))
			return 0;
	}
	return id > 0 ? (uint32_t)id : 0;
}

/* Point the references of t (just copied from tmp) at their places. */
static void remap_refs(struct btf_type *t, const uint32_t *perm)
{
	int n = btf_vlen(t);

	if (btf_is_composite(t)) {
		struct btf_member *m = btf_members(t);
		for (int i = 0; i < n; i++)
			m[i].type = perm[m[i].type];
	} else if (btf_is_array(t)) {
		btf_array(t)->type = perm[btf_array(t)->type];
		btf_array(t)->index_type = perm[btf_array(t)->index_type];
	} else if (btf_is_func_proto(t)) {
		struct btf_param *p = btf_params(t);
		for (int i = 0; i < n; i++)
			p[i].type = perm[p[i].type];
		t->type = perm[t->type];
	} else if (btf_is_mod(t) || btf_is_typedef(t) || btf_is_type_tag(t) || btf_is_ptr(t)) {
		t->type = perm[t->type];
	}
}

/*
 * tmp's types again, the KT_N types at their kernel ids (kids; tids their
 * ids in tmp), the others in the ids left from 1 on, the ids no type takes
 * below the highest of kids filled with void pointers. NULL on failure.
 */
static struct btf *place(struct btfc *c, const struct btf *k, const struct btf *tmp,
			 const uint32_t *tids, const uint32_t *kids)
{
	uint32_t n = btf__type_cnt(tmp), top = n, next = 2; /* id 1: the key */
	struct btf *out = NULL;

	for (int i = 0; i < KT_N; i++)
		top = kids[i] > top ? kids[i] : top;
	uint32_t *at = calloc(top + 1, sizeof(*at)), *perm = calloc(n, sizeof(*perm));
	if (!at || !perm)
		goto out;
	for (int i = 0; i < KT_N; i++) {
		if (!tids[i] || kids[i] < 2 || at[kids[i]] || perm[tids[i]])
			goto out;
		at[kids[i]] = tids[i];
		perm[tids[i]] = kids[i];
	}
	for (uint32_t j = 1; j < n; j++) {
		if (perm[j])
			continue;
		while (at[next])
			next++;
		at[next] = j;
		perm[j] = next;
	}
	out = btf__new_empty();
	if (out && add_key(c, out, k)) {
		btf__free(out);
		out = NULL;
	}
	for (uint32_t i = 2; out && i <= top; i++) {
		int id = at[i] ? btf__add_type(out, tmp, btf__type_by_id(tmp, at[i]))
			       : btf__add_ptr(out, 0);
		if (id != (int)i) {
			btf__free(out);
			out = NULL;
		} else if (at[i]) {
			remap_refs((struct btf_type *)btf__type_by_id(out, i), perm);
		}
	}
out:
	free(at);
	free(perm);
	return out;
}

/* Write data to DIR/CACHE_FILE through a synced temporary file; 0 or -1. */
static int write_cache(const char *dir, const void *data, uint32_t size)
{
	char tmp[64];
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), fd, rc = -1;

	if (dfd < 0)
		return -1;
	snprintf(tmp, sizeof(tmp), CACHE_FILE ".%d.tmp", (int)getpid());
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0) {
		rc = write(fd, data, size) == (ssize_t)size && fsync(fd) == 0 ? 0 : -1;
		rc = close(fd) || rc ? -1 : renameat(dfd, tmp, dfd, CACHE_FILE);
		if (rc)
			unlinkat(dfd, tmp, 0);
	}
	close(dfd);
	return rc;
}

static void *build(void *arg)
{
	struct btfc *c = arg;
	struct builder b = {0};
	struct btf *out = NULL;
	const void *raw;
	uint32_t size = 0, tids[KT_N], kids[KT_N];
	const char *what = "cannot read the kernel's BTF";

	b.k = btf__load_vmlinux_btf();
	if (!b.k)
		goto out;
	what = "out of memory";
	b.out = btf__new_empty();
	b.map = calloc(btf__type_cnt(b.k), sizeof(*b.map));
	if (!b.out || !b.map)
		goto out;
	what = "a type it cannot copy";
	if (copy_roots(&b, c->local))
		goto out;
	for (int k = 0; k < KT_N; k++) {
		kids[k] = kernel_struct(b.k, ktype_names[k]);
		tids[k] = kids[k] ? b.map[kids[k]] : 0;
	}
	out = place(c, b.k, b.out, tids, kids);
	if (!out)
		goto out;
	raw = btf__raw_data(out, &size);
	what = "cannot write it";
	if (raw && !write_cache(c->dir, raw, size)) {
		snprintf(c->built, sizeof(c->built), "built: %u types (%u copied), %u bytes",
			 btf__type_cnt(out) - 1, btf__type_cnt(b.out) - 1, size);
		what = NULL;
	}
out:
	if (what)
		snprintf(c->built, sizeof(c->built), "not built: %s", what);
	free(b.map);
	btf__free(out);
	btf__free(b.out);
	btf__free((struct btf *)b.k);
	return NULL;
}

int btfc_build_start(struct btfc *c, const struct btf *local, const char *const *tps, int ntps)
{
	const void *raw;
	uint32_t size;

	/* a recorder that may not write there (capabilities, not root) leaves
	 * the cache to root's */
	if (!c || c->fd >= 0 || !c->dir[0] || c->building || !local || access(c->dir, W_OK))
		return 0;
	c->tps = tps;
	c->ntps = ntps < TPS_MAX ? ntps : TPS_MAX;
	raw = btf__raw_data(local, &size);
	c->local = raw ? btf__new(raw, size) : NULL;
	if (!c->local)
		return -1;
	if (tr_thread_start(&c->thread, build, c)) {
		btf__free(c->local);
		c->local = NULL;
		return -1;
	}
	c->building = true;
	return 0;
}

void btfc_free(struct btfc *c, char *built, size_t size)
{
	if (built && size)
		*built = 0;
	if (!c)
		return;
	if (c->building) {
		pthread_join(c->thread, NULL);
		if (built && size)
			snprintf(built, size, "%s", c->built);
	}
	btf__free(c->local);
	if (c->fd >= 0)
		close(c->fd);
	free(c);
}
