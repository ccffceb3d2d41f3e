/* SPDX-License-Identifier: MIT */
/*
 * print.c -- freestanding formatted output over board_putc.
 *
 * Small on purpose: it runs on the panic path, so it takes no locks, uses
 * no heap and a bounded amount of stack (one 24-byte digit buffer).
 */
#include "ex.h"

void ex_putc(char c)
{
    /* Serial terminals want CR LF; the run script strips the CR again. */
    if (c == '\n')
        board_putc('\r');
    board_putc(c);
}

void ex_puts(const char *s)
{
    while (*s)
        ex_putc(*s++);
}

size_t ex_strlen(const char *s)
{
    size_t n = 0;

    while (s[n])
        n++;
    return n;
}

bool ex_streq(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

struct ex_spec {
    bool left;    /* '-' */
    bool zero;    /* '0' */
    unsigned width;
};

static void pad(unsigned n, char c)
{
    while (n--)
        ex_putc(c);
}

static void put_field(const char *s, size_t len, const struct ex_spec *sp)
{
    unsigned fill = sp->width > len ? sp->width - (unsigned)len : 0;

    if (!sp->left)
        pad(fill, sp->zero ? '0' : ' ');
    while (len--)
        ex_putc(*s++);
    if (sp->left)
        pad(fill, ' ');
}

/* Digits of v in base 10 or 16, with an optional '-' kept in front of any
 * zero padding. */
static void put_num(uint64_t v, unsigned base, bool upper, bool neg,
                    const struct ex_spec *sp)
{
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char buf[24];
    size_t i = sizeof buf;
    unsigned len;

    do {
        buf[--i] = digits[v % base];
        v /= base;
    } while (v);
    len = (unsigned)(sizeof buf - i);
    if (neg) {
        if (sp->zero && !sp->left) {
            struct ex_spec rest = *sp;

            ex_putc('-');
            rest.width = sp->width ? sp->width - 1 : 0;
            put_field(&buf[i], len, &rest);
            return;
        }
        buf[--i] = '-';
        len++;
    }
    put_field(&buf[i], len, sp);
}

void ex_vprintf(const char *fmt, va_list ap)
{
    for (; *fmt; fmt++) {
        struct ex_spec sp = { false, false, 0 };
        int lng = 0; /* 0: int, 1: long, 2: long long, 3: size_t */
        uint64_t u;
        int64_t s;

        if (*fmt != '%') {
            ex_putc(*fmt);
            continue;
        }
        fmt++;
        for (;; fmt++) {
            if (*fmt == '-')
                sp.left = true;
            else if (*fmt == '0')
                sp.zero = true;
            else
                break;
        }
        while (*fmt >= '0' && *fmt <= '9')
            sp.width = sp.width * 10 + (unsigned)(*fmt++ - '0');
        if (*fmt == 'l') {
            lng = 1;
            if (*++fmt == 'l') {
                lng = 2;
                fmt++;
            }
        } else if (*fmt == 'z') {
            lng = 3;
            fmt++;
        }
        switch (*fmt) {
        case 'd':
        case 'i':
            if (lng == 0)
                s = va_arg(ap, int);
            else if (lng == 1)
                s = va_arg(ap, long);
            else if (lng == 2)
                s = va_arg(ap, long long);
            else
                s = (int64_t)va_arg(ap, size_t);
            /* Negate in unsigned arithmetic: INT64_MIN has no positive. */
            put_num(s < 0 ? 0 - (uint64_t)s : (uint64_t)s, 10, false, s < 0, &sp);
            break;
        case 'u':
        case 'x':
        case 'X':
            if (lng == 0)
                u = va_arg(ap, unsigned);
            else if (lng == 1)
                u = va_arg(ap, unsigned long);
            else if (lng == 2)
                u = va_arg(ap, unsigned long long);
            else
                u = va_arg(ap, size_t);
            put_num(u, *fmt == 'u' ? 10 : 16, *fmt == 'X', false, &sp);
            break;
        case 'p':
            ex_puts("0x");
            sp.zero = true;
            sp.width = 16;
            put_num((uint64_t)(uintptr_t)va_arg(ap, void *), 16, false, false, &sp);
            break;
        case 's': {
            const char *str = va_arg(ap, const char *);

            if (str == NULL)
                str = "(null)";
            put_field(str, ex_strlen(str), &sp);
            break;
        }
        case 'c': {
            char c = (char)va_arg(ap, int);

            put_field(&c, 1, &sp);
            break;
        }
        case '%':
            ex_putc('%');
            break;
        case '\0':
            return; /* lone '%' at the end */
        default:
            /* Unknown conversion: show it rather than guess its argument. */
            ex_putc('%');
            ex_putc(*fmt);
            break;
        }
    }
}

void ex_printf(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    ex_vprintf(fmt, ap);
    va_end(ap);
}
