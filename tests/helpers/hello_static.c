/* SPDX-License-Identifier: BSD-2-Clause */
/* hello_static.c - a statically linked program (C21: exec inside a chroot
 * that holds nothing but it). Prints "hello PID" and exits 0. */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	printf("hello %d\n", (int)getpid());
	return 0;
}
