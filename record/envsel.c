/* SPDX-License-Identifier: BSD-2-Clause */
/* envsel.c - --env: keep the named variables of an exec's environment window. */
#include <stdlib.h>
#include <string.h>

#include "record.h"

int env_names_parse(const char *spec, struct env_names *out)
{
	memset(out, 0, sizeof(*out));
	for (const char *p = spec;;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (!len || len > ENV_NAME_MAX || out->n == ENV_NAMES_MAX)
			goto bad;
		for (size_t i = 0; i < len; i++)
			if (p[i] == '=' || (unsigned char)p[i] <= ' ')
				goto bad;
		out->name[out->n] = strndup(p, len);
		if (!out->name[out->n])
			goto bad;
		out->len[out->n++] = len;
		if (!e)
			return 0;
		p = e + 1;
	}
bad:
	env_names_free(out);
	return -1;
}

void env_names_free(struct env_names *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->name[i]);
	memset(s, 0, sizeof(*s));
}

static int wanted(const struct env_names *s, const char *v, size_t len)
{
	const char *eq = memchr(v, '=', len);
	if (!eq)
		return 0;
	size_t nl = (size_t)(eq - v);
	for (size_t i = 0; i < s->n; i++)
		if (s->len[i] == nl && !memcmp(s->name[i], v, nl))
			return 1;
	return 0;
}

uint32_t env_filter(const struct env_names *s, char *env, uint32_t len)
{
	uint32_t out = 0, i = 0;
	while (i < len) {
		char *nul = memchr(env + i, 0, len - i);
		if (!nul)
			break; /* cut by the window: never a partial value */
		uint32_t n = (uint32_t)(nul - (env + i));
		if (wanted(s, env + i, n)) {
			memmove(env + out, env + i, n + 1);
			out += n + 1;
		}
		i += n + 1;
	}
	return out;
}
