"""Durations in Go's syntax, as kubectl and client-go users write them.

``parse_duration`` accepts what Go's ``time.ParseDuration`` accepts ("300ms",
"1.5h", "1m30s", "300us"/"300µs", "0") and returns float seconds.
``format_duration`` prints seconds the way Go's ``Duration.String`` does
("1m30s", "200ms", "1h0m0s", "0s"), so what we print reads like client-go logs.

Our CLI has no use for negative durations (a negative resync or delay is a
typo), so they are rejected unless the caller asks otherwise.
"""

from __future__ import annotations

__all__ = ["parse_duration", "format_duration"]

_NS = 1
_US = 1000 * _NS
_MS = 1000 * _US
_S = 1000 * _MS
_M = 60 * _S
_H = 60 * _M

# Go accepts both micro signs: U+00B5 (micro sign) and U+03BC (Greek mu).
_UNITS = {
    "ns": _NS,
    "us": _US,
    "\u00b5s": _US,
    "\u03bcs": _US,
    "ms": _MS,
    "s": _S,
    "m": _M,
    "h": _H,
}

# Go's Duration is an int64 of nanoseconds; larger values are an error there.
_MAX_NS = (1 << 63) - 1


def _invalid(s: str, why: str | None = None) -> ValueError:
    msg = f'invalid duration "{s}"'
    return ValueError(f"{msg}: {why}" if why else msg)


def parse_duration(s: str, *, allow_negative: bool = False) -> float:
    """Parse a Go duration string into seconds (float).

    ValueError('invalid duration "3x"') on bad input; a negative duration is
    an error unless ``allow_negative``.
    """
    if not isinstance(s, str):
        raise _invalid(str(s))
    orig = s
    neg = False
    if s and s[0] in "+-":
        neg = s[0] == "-"
        s = s[1:]
    if s == "0":
        return 0.0
    if not s:
        raise _invalid(orig)
    total = 0  # nanoseconds, exact integer arithmetic as Go does
    while s:
        # Integer part.
        i = 0
        while i < len(s) and s[i].isascii() and s[i].isdigit():
            i += 1
        int_part = s[:i]
        s = s[i:]
        frac_part = ""
        if s.startswith("."):
            s = s[1:]
            i = 0
            while i < len(s) and s[i].isascii() and s[i].isdigit():
                i += 1
            frac_part = s[:i]
            s = s[i:]
        if not int_part and not frac_part:
            # No digits at all (".s", "s", "1m.s"): Go rejects it.
            raise _invalid(orig)
        # Unit: everything up to the next digit or '.'.
        i = 0
        while i < len(s) and s[i] != "." and not (s[i].isascii() and s[i].isdigit()):
            i += 1
        unit = s[:i]
        s = s[i:]
        if not unit:
            raise _invalid(orig)
        scale = _UNITS.get(unit)
        if scale is None:
            raise _invalid(orig)
        v = int(int_part or "0") * scale
        if frac_part:
            # Exact: fraction * scale / 10**digits, truncated like Go.
            v += int(frac_part) * scale // (10 ** len(frac_part))
        total += v
        if total > _MAX_NS:
            raise _invalid(orig, "out of range")
    if neg and total != 0:
        if not allow_negative:
            raise _invalid(orig, "must not be negative")
        total = -total
    return total / _S


def _fmt_frac(v: int, prec: int) -> tuple[int, str]:
    """Split v into integer part and Go-style fraction (trailing zeros dropped)
    with ``prec`` decimal digits."""
    digits = ""
    printed = False
    for _ in range(prec):
        d = v % 10
        printed = printed or d != 0
        if printed:
            digits = str(d) + digits
        v //= 10
    return v, ("." + digits if printed else "")


def format_duration(seconds: float) -> str:
    """Go's ``Duration.String`` for ``seconds``: "1h0m0s", "1m30s", "4s",
    "200ms", "1.5µs", "0s"."""
    ns = round(seconds * _S)
    if ns == 0:
        return "0s"
    neg = ns < 0
    u = -ns if neg else ns
    sign = "-" if neg else ""
    if u < _S:
        # Sub-second: one unit with a fraction, as Go does.
        if u < _US:
            return f"{sign}{u}ns"
        if u < _MS:
            whole, frac = _fmt_frac(u, 3)
            return f"{sign}{whole}{frac}\u00b5s"
        whole, frac = _fmt_frac(u, 6)
        return f"{sign}{whole}{frac}ms"
    whole_s, frac = _fmt_frac(u, 9)
    out = f"{whole_s % 60}{frac}s"
    minutes = whole_s // 60
    if minutes:
        out = f"{minutes % 60}m" + out
        hours = minutes // 60
        if hours:
            out = f"{hours}h" + out
    return sign + out


def format_short(seconds: float | None) -> str:
    """A short Go-like duration for display: ``850ms``, ``1.2s``, ``4s``,
    ``1m30s``, ``2h5m``; ``-`` for None, ``?`` for NaN or infinity (a
    malformed recording). (``format_duration`` is Go's exact
    ``Duration.String``, for flags and round trips.)"""
    if seconds is None:
        return "-"
    if seconds != seconds or seconds in (float("inf"), float("-inf")):
        return "?"
    if seconds < 0:
        return "-" + format_short(-seconds)
    if seconds == 0:
        return "0s"
    if seconds < 0.001:
        return f"{seconds * 1e6:.0f}µs"
    if seconds < 1:
        ms = seconds * 1000
        return f"{ms:.1f}ms" if ms < 10 else f"{ms:.0f}ms"
    if seconds < 60:
        r = round(seconds, 1)
        return f"{r:.0f}s" if r == int(r) else f"{r:.1f}s"
    if seconds < 3600:
        m, s = divmod(int(round(seconds)), 60)
        return f"{m}m{s}s" if s else f"{m}m"
    h, rest = divmod(int(round(seconds)), 3600)
    m = rest // 60
    return f"{h}h{m}m" if m else f"{h}h"
