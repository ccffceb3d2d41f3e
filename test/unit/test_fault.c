/* SPDX-License-Identifier: MIT */
/* test_fault - the ports' fault decoders (port/aarch64/sfu_fault_aarch64.h,
 * port/x86_64/sfu_fault_x86_64.h) on a table of real syndromes: the ESR of
 * each exception class the aarch64 examples raise (as QEMU reported them:
 * the null load, the undefined instruction, the call through a null
 * pointer, the push below the stack, the guard page, the watchpoint of the
 * MMU-off image, its external aborts, the FP/SIMD trap of the hello probe,
 * its alignment fault under QEMU 11) and the classes a kernel meets beside
 * them; each x86_64 exception with an error code, the page fault's bits
 * one by one.  Each decoded into the exact line, the signal a core's
 * NT_SIGINFO gets, and whether the address is the CPU's. */
#define SFU_ERROR_STRINGS 1
#include "sfu.h"
#include "ut.h"
#include "../../port/aarch64/sfu_fault_aarch64.h"
#include "../../port/x86_64/sfu_fault_x86_64.h"

struct fcase {
	uint64_t code, addr;
	unsigned known;
	const char *line;
	int signo, si_code, addr_valid;
};

#define K (SFU_FAULT_CODE | SFU_FAULT_ADDR)
#define X(v, e) ((uint64_t)(v) << 32 | (e))

static const struct fcase a64[] = {
	/* the examples: null, badsp, guard page, libgcc's store */
	{ 0x96000006, 0, K, "data abort, read at 0x0000000000000000: level 2 translation fault (ESR 0x96000006, EC 0x25)", SFU_SIGSEGV, SFU_SEGV_MAPERR, 1 },
	{ 0x96000046, 0xff0, K, "data abort, write at 0x0000000000000ff0: level 2 translation fault (ESR 0x96000046, EC 0x25)", SFU_SIGSEGV, SFU_SEGV_MAPERR, 1 },
	{ 0x96000047, 0x40226ff0, K, "data abort, write at 0x0000000040226ff0: level 3 translation fault (ESR 0x96000047, EC 0x25)", SFU_SIGSEGV, SFU_SEGV_MAPERR, 1 },
	/* the MMU-off image: external aborts, the watchpoint guard */
	{ 0x96000010, 0x50000000, K, "data abort, read at 0x0000000050000000: synchronous external abort (ESR 0x96000010, EC 0x25)", SFU_SIGBUS, SFU_BUS_OBJERR, 1 },
	{ 0x96000050, 0x50000ff0, K, "data abort, write at 0x0000000050000ff0: synchronous external abort (ESR 0x96000050, EC 0x25)", SFU_SIGBUS, SFU_BUS_OBJERR, 1 },
	{ 0xd6000062, 0x40226ff0, K, "watchpoint, write at 0x0000000040226ff0 (ESR 0xd6000062, EC 0x35)", SFU_SIGTRAP, SFU_TRAP_HWBKPT, 1 },
	/* udf; nullcall (MMU on); the FP/SIMD probe; QEMU 11's alignment fault */
	{ 0x02000000, 0x1234, K, "undefined instruction (ESR 0x2000000, EC 0x00)", SFU_SIGILL, SFU_ILL_ILLOPC, 0 },
	{ 0x86000006, 0, K, "instruction abort at 0x0000000000000000: level 2 translation fault (ESR 0x86000006, EC 0x21)", SFU_SIGSEGV, SFU_SEGV_MAPERR, 1 },
	{ 0x1fe00000, 0, K, "FP/SIMD access trapped (CPACR_EL1.FPEN) (ESR 0x1fe00000, EC 0x07)", SFU_SIGILL, SFU_ILL_ILLOPC, 0 },
	{ 0x96000021, 0x40245011, K, "data abort, read at 0x0000000040245011: alignment fault (ESR 0x96000021, EC 0x25)", SFU_SIGBUS, SFU_BUS_ADRALN, 1 },
	/* a kernel's others */
	{ 0x9600004f, 0x40000000, K, "data abort, write at 0x0000000040000000: level 3 permission fault (ESR 0x9600004f, EC 0x25)", SFU_SIGSEGV, SFU_SEGV_ACCERR, 1 },
	{ 0x9600000b, 0x40000000, K, "data abort, read at 0x0000000040000000: level 3 access flag fault (ESR 0x9600000b, EC 0x25)", SFU_SIGSEGV, SFU_SEGV_ACCERR, 1 },
	{ 0x96000410, 0xdead, K, "data abort, read (FAR not valid): synchronous external abort (ESR 0x96000410, EC 0x25)", SFU_SIGBUS, SFU_BUS_OBJERR, 0 },
	{ 0x96000146, 0x1000, K, "data abort, cache maintenance at 0x0000000000001000: level 2 translation fault (ESR 0x96000146, EC 0x25)", SFU_SIGSEGV, SFU_SEGV_MAPERR, 1 },
	{ 0x96000087, 0x8000, K, "data abort, read at 0x0000000000008000: level 3 translation fault, on the stage 1 table walk (ESR 0x96000087, EC 0x25)", SFU_SIGSEGV, SFU_SEGV_MAPERR, 1 },
	{ 0x96000011, 0xf0000000, K, "data abort, read at 0x00000000f0000000: synchronous tag check fault (ESR 0x96000011, EC 0x25)", SFU_SIGSEGV, SFU_SEGV_MTESERR, 1 },
	{ 0x9600002b, 0x10, K, "data abort, read at 0x0000000000000010: level -1 translation fault (ESR 0x9600002b, EC 0x25)", SFU_SIGSEGV, SFU_SEGV_MAPERR, 1 },
	{ 0x96000030, 0x10, K, "data abort, read at 0x0000000000000010: TLB conflict abort (ESR 0x96000030, EC 0x25)", SFU_SIGBUS, SFU_BUS_OBJERR, 1 },
	{ 0x9600003f, 0x10, K, "data abort, read at 0x0000000000000010: fault status 0x3f (ESR 0x9600003f, EC 0x25)", SFU_SIGBUS, SFU_BUS_OBJERR, 1 },
	{ 0x92000007, 0x400, K, "data abort from EL0, read at 0x0000000000000400: level 3 translation fault (ESR 0x92000007, EC 0x24)", SFU_SIGSEGV, SFU_SEGV_MAPERR, 1 },
	{ 0x8200000f, 0x400, K, "instruction abort from EL0 at 0x0000000000000400: level 3 permission fault (ESR 0x8200000f, EC 0x20)", SFU_SIGSEGV, SFU_SEGV_ACCERR, 1 },
	{ 0x8a000000, 0x40200002, K, "PC alignment fault at 0x0000000040200002 (ESR 0x8a000000, EC 0x22)", SFU_SIGBUS, SFU_BUS_ADRALN, 1 },
	{ 0x9a000000, 0x1234, K, "SP alignment fault (ESR 0x9a000000, EC 0x26)", SFU_SIGBUS, SFU_BUS_ADRALN, 0 },
	{ 0xf2000800, 0, K, "BRK #0x800 (ESR 0xf2000800, EC 0x3c)", SFU_SIGTRAP, SFU_TRAP_BRKPT, 0 },
	{ 0x72000000, 0, K, "pointer authentication failure (ESR 0x72000000, EC 0x1c)", SFU_SIGILL, SFU_ILL_ILLOPN, 0 },
	{ 0x36000000, 0, K, "branch target exception (BTI) (ESR 0x36000000, EC 0x0d)", SFU_SIGILL, SFU_ILL_ILLOPC, 0 },
	{ 0x3a000000, 0, K, "illegal execution state (ESR 0x3a000000, EC 0x0e)", SFU_SIGILL, SFU_ILL_ILLOPC, 0 },
	{ 0x62340000, 0, K, "system register access trapped (ESR 0x62340000, EC 0x18)", SFU_SIGILL, SFU_ILL_PRVOPC, 0 },
	{ 0xbe000000, 0, K, "SError interrupt (ESR 0xbe000000, EC 0x2f)", SFU_SIGBUS, SFU_BUS_OBJERR, 0 },
	{ 0x56000007, 0, K, "SVC #0x7 (ESR 0x56000007, EC 0x15)", 0, 0, 0 },
	{ 0xfc000000, 0, K, "exception class 0x3f (ESR 0xfc000000, EC 0x3f)", SFU_SIGILL, SFU_ILL_ILLOPC, 0 },
	/* words the frame does not hold */
	{ 0x96000006, 0, SFU_FAULT_CODE, "data abort, read: level 2 translation fault (ESR 0x96000006, EC 0x25)", SFU_SIGSEGV, SFU_SEGV_MAPERR, 0 },
	{ 0x96000006, 0, SFU_FAULT_ADDR, "", 0, 0, 0 },
};

static const struct fcase x64[] = {
	/* the examples: null load, call through null, badsp's push, the guard page, libgcc */
	{ X(14, 0x0), 0, K, "#PF page fault, read at 0x0000000000000000: not-present page, supervisor mode (vector 14, error 0x0)", SFU_SIGSEGV, SFU_SEGV_MAPERR, 1 },
	{ X(14, 0x2), 0xff8, K, "#PF page fault, write at 0x0000000000000ff8: not-present page, supervisor mode (vector 14, error 0x2)", SFU_SIGSEGV, SFU_SEGV_MAPERR, 1 },
	{ X(14, 0x2), 0x126ff8, K, "#PF page fault, write at 0x0000000000126ff8: not-present page, supervisor mode (vector 14, error 0x2)", SFU_SIGSEGV, SFU_SEGV_MAPERR, 1 },
	{ X(6, 0), 0, K, "#UD invalid opcode (vector 6)", SFU_SIGILL, SFU_ILL_ILLOPN, 0 },
	/* the page fault's bits */
	{ X(14, 0x3), 0x1000, K, "#PF page fault, write at 0x0000000000001000: protection violation, supervisor mode (vector 14, error 0x3)", SFU_SIGSEGV, SFU_SEGV_ACCERR, 1 },
	{ X(14, 0x7), 0x400000, K, "#PF page fault, write at 0x0000000000400000: protection violation, user mode (vector 14, error 0x7)", SFU_SIGSEGV, SFU_SEGV_ACCERR, 1 },
	{ X(14, 0x11), 0xffffffff80001000, K, "#PF page fault, instruction fetch at 0xffffffff80001000: protection violation, supervisor mode (vector 14, error 0x11)", SFU_SIGSEGV, SFU_SEGV_ACCERR, 1 },
	{ X(14, 0x9), 0x2000, K, "#PF page fault, read at 0x0000000000002000: protection violation, supervisor mode, reserved bit set (vector 14, error 0x9)", SFU_SIGSEGV, SFU_SEGV_ACCERR, 1 },
	{ X(14, 0x23), 0x3000, K, "#PF page fault, write at 0x0000000000003000: protection violation, supervisor mode, protection key (vector 14, error 0x23)", SFU_SIGSEGV, SFU_SEGV_ACCERR, 1 },
	{ X(14, 0x43), 0x4000, K, "#PF page fault, write at 0x0000000000004000: protection violation, supervisor mode, shadow stack (vector 14, error 0x43)", SFU_SIGSEGV, SFU_SEGV_ACCERR, 1 },
	{ X(14, 0x8001), 0x5000, K, "#PF page fault, read at 0x0000000000005000: protection violation, supervisor mode, SGX (vector 14, error 0x8001)", SFU_SIGSEGV, SFU_SEGV_ACCERR, 1 },
	{ X(14, 0x2), 0, SFU_FAULT_CODE, "#PF page fault, write: not-present page, supervisor mode (vector 14, error 0x2)", SFU_SIGSEGV, SFU_SEGV_MAPERR, 0 },
	/* each other exception with an error code */
	{ X(8, 0), 0, K, "#DF double fault (vector 8, error 0x0)", SFU_SIGSEGV, SFU_SI_KERNEL, 0 },
	{ X(10, 0x28), 0, K, "#TS invalid TSS: GDT selector 0x28 (vector 10, error 0x28)", SFU_SIGSEGV, SFU_SI_KERNEL, 0 },
	{ X(11, 0x31), 0, K, "#NP segment not present: GDT selector 0x30, external event (vector 11, error 0x31)", SFU_SIGBUS, SFU_SI_KERNEL, 0 },
	{ X(12, 0), 0x77, K, "#SS stack-segment fault (vector 12, error 0x0)", SFU_SIGBUS, SFU_SI_KERNEL, 0 },
	{ X(12, 0x2c), 0, K, "#SS stack-segment fault: LDT selector 0x28 (vector 12, error 0x2c)", SFU_SIGBUS, SFU_SI_KERNEL, 0 },
	{ X(13, 0), 0, K, "#GP general protection (vector 13, error 0x0)", SFU_SIGSEGV, SFU_SI_KERNEL, 0 },
	{ X(13, 0x6a), 0, K, "#GP general protection: IDT vector 13 (vector 13, error 0x6a)", SFU_SIGSEGV, SFU_SI_KERNEL, 0 },
	{ X(17, 0), 0, K, "#AC alignment check (vector 17, error 0x0)", SFU_SIGBUS, SFU_BUS_ADRALN, 0 },
	{ X(21, 1), 0, K, "#CP control protection: near return (vector 21, error 0x1)", SFU_SIGSEGV, SFU_SEGV_CPERR, 0 },
	{ X(21, 3), 0, K, "#CP control protection: missing ENDBRANCH (vector 21, error 0x3)", SFU_SIGSEGV, SFU_SEGV_CPERR, 0 },
	{ X(29, 0x7b), 0, K, "#VC VMM communication (vector 29, error 0x7b)", SFU_SIGSEGV, SFU_SI_KERNEL, 0 },
	{ X(30, 1), 0, K, "#SX security exception (vector 30, error 0x1)", SFU_SIGSEGV, SFU_SI_KERNEL, 0 },
	/* without an error code; not an exception */
	{ X(0, 0), 0, K, "#DE divide error (vector 0)", SFU_SIGFPE, SFU_FPE_INTDIV, 0 },
	{ X(3, 0), 0, K, "#BP breakpoint (vector 3)", SFU_SIGTRAP, SFU_TRAP_BRKPT, 0 },
	{ X(18, 0), 0, K, "#MC machine check (vector 18)", SFU_SIGBUS, SFU_BUS_MCEERR_AR, 0 },
	{ X(15, 0), 0, K, "reserved exception (vector 15)", SFU_SIGSEGV, SFU_SI_KERNEL, 0 },
	{ X(32, 0), 0, K, "interrupt (vector 32)", 0, 0, 0 },
	{ X(14, 0), 0, SFU_FAULT_ADDR, "", 0, 0, 0 },
};

static void run(const char *arch, const struct fcase *c, size_t n)
{
	char buf[SFU_FAULT_LINE], name[64];
	struct sfu_fault f;
	size_t i, len;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof name, "unit fault %s %#llx", arch, (unsigned long long)c[i].code);
		begin();
		memset(buf, 'z', sizeof buf);
		len = arch[0] == 'a' ? sfu_aarch64_fault(c[i].code, c[i].addr, c[i].known, buf, sizeof buf, &f)
		                     : sfu_x86_64_fault(c[i].code, c[i].addr, c[i].known, buf, sizeof buf, &f);
		EXPECT(strcmp(buf, c[i].line) == 0, "line \"%s\", want \"%s\"", buf, c[i].line);
		EXPECT(len == strlen(c[i].line), "length %zu, want %zu", len, strlen(c[i].line));
		EXPECT(f.signo == c[i].signo && f.code == c[i].si_code, "signal %d code %d, want %d %d", f.signo, f.code,
		       c[i].signo, c[i].si_code);
		EXPECT(f.addr_valid == (c[i].addr_valid != 0) && f.addr == (c[i].addr_valid ? c[i].addr : 0),
		       "address %d %#llx, want %d", (int)f.addr_valid, (unsigned long long)f.addr, c[i].addr_valid);
		end(name);
	}
}

UT_CASE(test_tables)
{
	run("aarch64", a64, sizeof a64 / sizeof a64[0]);
	run("x86_64", x64, sizeof x64 / sizeof x64[0]);
}

/* Every line fits SFU_FAULT_LINE; a short buffer truncates, NUL-terminated,
 * and the signal is decoded all the same. */
UT_CASE(test_truncate)
{
	char buf[SFU_FAULT_LINE], small[12];
	struct sfu_fault f;
	uint64_t esr;
	unsigned long v;
	size_t worst = 0, len;

	begin();
	for (esr = 0; esr < 64; esr++) {
		unsigned fsc;
		for (fsc = 0; fsc < 64; fsc++) {
			len = sfu_aarch64_fault(esr << 26 | 0x7c0u | fsc, ~0ull, SFU_FAULT_CODE | SFU_FAULT_ADDR, buf, sizeof buf, &f);
			if (len > worst)
				worst = len;
		}
	}
	for (v = 0; v < 300; v++) {
		len = sfu_x86_64_fault(X(v, 0xffffffffu), ~0ull, SFU_FAULT_CODE | SFU_FAULT_ADDR, buf, sizeof buf, &f);
		if (len > worst)
			worst = len;
	}
	EXPECT(worst < SFU_FAULT_LINE - 1, "a line of %zu bytes does not fit SFU_FAULT_LINE %u", worst, SFU_FAULT_LINE);
	memset(small, 'z', sizeof small);
	len = sfu_x86_64_fault(X(14, 2), 0xff8, SFU_FAULT_CODE | SFU_FAULT_ADDR, small, sizeof small, &f);
	EXPECT(len == sizeof small - 1 && small[sizeof small - 1] == 0 && strcmp(small, "#PF page fa") == 0,
	       "truncated to \"%s\" (%zu)", small, len);
	EXPECT(f.signo == SFU_SIGSEGV && f.addr_valid && f.addr == 0xff8, "signal of a truncated line");
	end("unit fault: every line fits SFU_FAULT_LINE, a short buffer truncates it");
}

int main(void)
{
	(void)E;
	return ut_main("unit fault");
}
