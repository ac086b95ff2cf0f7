/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * path.bpf.h - copying names and resolving paths (exe, cwd, script) in BPF: direct loads for short strings, the dentry walk.
 * Part of tracer.bpf.c, included in place (one BPF object): it uses the
 * maps, scratch and helpers defined above its #include there.
 */
#ifndef TRACER_PATH_BPF_H
#define TRACER_PATH_BPF_H

/* names up to this many bytes are copied by direct loads, not a helper call */
#define NAME_DIRECT_MAX 32
/* filenames up to this many bytes (NUL excluded) likewise */
#define FNAME_DIRECT_MAX 63
/* resolved paths up to this many bytes are copied out of the walk's window
 * by 8-byte loads and stores */
#define PATH_DIRECT_MAX 64

/* the 8 bytes at kernel address addr by a direct (fault-safe) load: struct
 * rb_node starts with an unsigned long; a fault reads 0 */
static __always_inline __u64 load_word(__u64 addr)
{
	struct rb_node *w = bpf_rdonly_cast((void *)addr, bpf_core_type_id_kernel(struct rb_node));

	return w->__rb_parent_color;
}

/*
 * Copy the string at kernel address src to dst by direct loads of 8-byte
 * words, NUL included (dst gets whole words: up to 7 bytes past the NUL).
 * Returns its length, or FNAME_DIRECT_MAX + 1 when it is longer or a word
 * reads as all zero (a fault, or a NUL at a word start): then the caller
 * reads it with the helper.
 */
static __always_inline __u32 copy_str_direct(char *dst, __u64 src)
{
	__u64 w, m;
	int k;

#pragma unroll
	for (k = 0; k < (FNAME_DIRECT_MAX + 1) / 8; k++) {
		w = load_word(src + 8 * k);
		if (!w)
			break;
		*(__u64 *)(dst + 8 * k) = w;
		/* the first zero byte, as the kernel's word-at-a-time
		 * has_zero()/find_zero() find it (little-endian) */
		m = (w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull;
		if (m)
			return 8 * k + ((((m - 1) & ~m) >> 7) * 0x0001020304050608ull >> 56);
	}
	return FNAME_DIRECT_MAX + 1;
}

/* the walk's pointers, kept as numbers (a bpf_loop callback's context loses
 * their BTF type; bpf_rdonly_cast gives it back for direct loads) */
struct walk_ctx {
	__u64 dentry;
	__u64 mnt; /* struct mount * */
	char *buf;
	__u32 pos;
	__u32 flags;
	__u32 done; /* the walk reached a root (not cut by PATH_DEPTH) */
};

/* One step of the upward walk (a bpf_loop callback): 0 goes on, 1 stops.
 * Direct (fault-safe) loads; a helper call only for a name longer than
 * NAME_DIRECT_MAX. */
static long walk_step(__u32 i, void *arg)
{
	struct walk_ctx *c = arg;
	struct dentry *dentry, *parent;
	struct mount *mnt;
	const unsigned char *name;
	char *buf = c->buf;
	__u32 len, pos = c->pos;

	dentry = bpf_rdonly_cast((void *)c->dentry, bpf_core_type_id_kernel(struct dentry));
	mnt = bpf_rdonly_cast((void *)c->mnt, bpf_core_type_id_kernel(struct mount));
	parent = dentry->d_parent;
	if (dentry == mnt->mnt.mnt_root) {
		struct mount *up = mnt->mnt_parent;

		if (up == mnt || !up) {
			c->done = 1;
			return 1;
		}
		c->dentry = (__u64)mnt->mnt_mountpoint;
		c->mnt = (__u64)up;
		return 0;
	}
	if (dentry == parent) {
		c->done = 1;
		return 1;
	}
	name = dentry->d_name.name;
	len = dentry->d_name.len;
	/* the name and its '/' must leave pos >= 1: the kept tail (at most
	 * EV_PATH_MAX - 1 bytes, '/' first) is then never cut at its end */
	if (len + 2 > pos || pos > PATH_WIN) {
		c->flags |= EV_EXEC_PATH_TRUNCATED;
		return 1;
	}
	pos -= len;
	if (len <= NAME_DIRECT_MAX && pos >= 8) {
		/* right-aligned 8-byte words: the bytes before the name land
		 * left of pos, where the '/' and the parent's name go (or
		 * outside the result). A whole zero word is a fault (a name's
		 * last byte is never 0): the helper reads it again. */
		__u64 end = (__u64)name + len, w;
		__u32 k;

		for (k = 8; k <= NAME_DIRECT_MAX; k += 8) {
			if (k - 8 >= len)
				break;
			w = load_word(end - k);
			if (!w)
				goto slow;
			*(__u64 *)(buf + ((pos + len - k) & (PATH_WIN - 1))) = w;
		}
	} else {
slow:
		bpf_probe_read_kernel(buf + (pos & (PATH_WIN - 1)), len & (PATH_WIN - 1), name);
	}
	pos -= 1;
	buf[pos & (PATH_WIN - 1)] = '/';
	c->pos = pos;
	c->dentry = (__u64)parent;
	return 0;
}

/*
 * Resolve a struct path into buf[pos..PATH_WIN) by walking dentries and
 * mounts upwards (bpf_d_path is not allowed on tracepoints). Returns pos; the
 * path is buf[pos..PATH_WIN). *flags gets EV_EXEC_EXE_DELETED/_MEMFD/
 * _PATH_TRUNCATED. buf holds 2 * PATH_WIN bytes.
 */
static __always_inline __u32 resolve_path(struct dentry *dentry, struct vfsmount *vfsmnt,
					  char *buf, __u32 *flags)
{
	struct walk_ctx c = {
		.dentry = (__u64)dentry,
		.mnt = (__u64)vfsmnt - bpf_core_field_offset(struct mount, mnt),
		.buf = buf,
		.pos = PATH_WIN,
	};
	struct dentry *parent;
	__u32 pos, len;

	if (!dentry)
		return PATH_WIN;
	parent = dentry->d_parent;
	if (dentry == parent && dentry != vfsmnt->mnt_root) {
		/* pseudo file (memfd, anon inode): its name alone */
		const unsigned char *name = dentry->d_name.name;

		len = dentry->d_name.len;
		if (len > PATH_WIN - 1)
			len = PATH_WIN - 1;
		pos = PATH_WIN - len;
		bpf_probe_read_kernel(buf + (pos & (PATH_WIN - 1)), len & (PATH_WIN - 1), name);
		if (len > 6 && buf[pos & (PATH_WIN - 1)] == 'm' &&
		    buf[(pos + 5) & (PATH_WIN - 1)] == ':')
			*flags |= EV_EXEC_EXE_MEMFD;
		return pos;
	}
	if (!dentry->d_hash.pprev)
		*flags |= EV_EXEC_EXE_DELETED;
	/* a walk that stops at its last allowed step is complete, not cut */
	bpf_loop(PATH_DEPTH, walk_step, &c, 0);
	if (!c.done)
		c.flags |= EV_EXEC_PATH_TRUNCATED;
	*flags |= c.flags;
	pos = c.pos;
	if (pos >= PATH_WIN) {
		pos = PATH_WIN - 1;
		buf[pos] = '/';
	}
	return pos;
}

/* Copy buf[pos..PATH_WIN) to dst; returns the length. A path up to
 * PATH_DIRECT_MAX bytes goes by 8-byte words (dst gets up to 7 bytes more,
 * which later fields overwrite or the record leaves out). */
static __always_inline __u32 copy_path(char *dst, const char *buf, __u32 pos)
{
	__u32 len = PATH_WIN - pos;
	int k;

	if (len <= PATH_DIRECT_MAX) {
#pragma unroll
		for (k = 0; k < PATH_DIRECT_MAX / 8; k++) {
			if (8 * k >= len)
				break;
			*(__u64 *)(dst + 8 * k) =
			    *(const __u64 *)(buf + ((pos + 8 * k) & (PATH_WIN - 1)));
		}
		return len;
	}
	if (len > EV_PATH_MAX - 1)
		len = EV_PATH_MAX - 1;
	barrier_var(len);
	len &= EV_PATH_MAX - 1;
	bpf_probe_read_kernel(dst, len, buf + (pos & (PATH_WIN - 1)));
	return len;
}

#endif
