/* The control of test/codegen's README checks: user code of the kind the
 * crash path must not contain, a struct copied at run time (the shape of
 * `sfu_port port = SFU_PORT_INIT(...)` in a user's panic()), which every
 * compiler the suite uses turns into SSE or q-register moves at -O2 when
 * nothing forbids it.  If one did not, the README blocks' "no FP/SIMD"
 * would prove nothing for it. */
#include <stdint.h>

struct user_regs {
    uint64_t pc, sp, fp, ra;
};

void user_copy(struct user_regs *to, const struct user_regs *from);

void user_copy(struct user_regs *to, const struct user_regs *from)
{
    *to = *from;
}
