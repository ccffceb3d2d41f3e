/* SPDX-License-Identifier: MIT */
/* Calls to functions defined elsewhere.  Linked into a shared object by
   GNU ld, the calls go through the PLT, for which ld writes its own
   SFrame FDEs (PC-mask FDEs for the repeated PLT entries). */

extern int plt_ext_a(int);
extern int plt_ext_b(int);
extern int plt_ext_c(int);

int plt_user(int x)
{
	return plt_ext_a(x) + plt_ext_b(x + 1) + plt_ext_c(x + 2);
}
