"""Number normalisation: every notation of a quantity maps to one canonical (value, unit).

Owns the rule of seed 001 sections 10.3 and 17.5: a number in a claim must appear in
its evidence. Verbatim matching fails on notation ("1,234" vs "1234", "１２３", "三千",
"10万", "1.5 million", "3 per cent" vs "百分之三"), so both sides are normalised to a
canonical decimal string and a canonical unit before they are compared. The raw form is
kept for display, because a reader must see what the source actually says.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from citeloop.runtime.memo import memo

__all__ = ["NumberMention", "extract_numbers", "numbers_match", "same_quantity", "canonical_value"]


@dataclass(frozen=True)
class NumberMention:
    raw: str
    """The mention as written in the text, e.g. "1,5 million" or "百分之三"."""
    value: str
    """Canonical decimal string: no separators, no trailing zeros ("1500000", "1.5")."""
    unit: str | None
    """Canonical unit ("%", "km", "usd", ...) or None when unitless or not recognised."""
    span: tuple[int, int] = field(default=(0, 0), compare=False)
    """Character offsets of `raw` in the text it came from (not part of equality)."""


# Full-width ASCII (U+FF01..U+FF5E) maps one-to-one onto ASCII, so offsets into the
# translated text are offsets into the original and `raw` can be cut from the original.
_HALF_WIDTH = {cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)}
_HALF_WIDTH.update({0x3000: 0x20, 0xFFE5: ord("¥")})

_SCALES = {
    "thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12, "bn": 10**9,
    "k": 10**3, "百": 10**2, "千": 10**3, "万": 10**4, "百万": 10**6, "千万": 10**7,
    "亿": 10**8, "万亿": 10**12,
}

# Surface form -> canonical unit. Kept small on purpose: only units whose surface form
# cannot be confused with something else. Bare "m" (metre or million?) and "s" ("1990s")
# are left out; "年" is left out so "1986年" stays the plain year 1986.
_UNITS = {
    "%": "%", "percent": "%", "per cent": "%", "pct": "%",
    "km": "km", "kilometres": "km", "kilometers": "km", "kilometre": "km", "kilometer": "km",
    "公里": "km", "metres": "m", "meters": "m", "metre": "m", "meter": "m", "米": "m",
    "cm": "cm", "mm": "mm", "miles": "mi", "mile": "mi",
    "kg": "kg", "kilograms": "kg", "kilogram": "kg", "公斤": "kg",
    "ms": "ms", "milliseconds": "ms", "millisecond": "ms", "毫秒": "ms",
    "seconds": "s", "second": "s", "sec": "s", "秒": "s",
    "minutes": "min", "minute": "min", "min": "min", "分钟": "min",
    "hours": "h", "hour": "h", "小时": "h", "days": "day", "day": "day", "天": "day",
    "years": "year", "year": "year",
    "dollars": "usd", "dollar": "usd", "usd": "usd", "euros": "eur", "euro": "eur",
    "eur": "eur", "gbp": "gbp", "yuan": "cny", "rmb": "cny", "cny": "cny", "元": "cny",
    "yen": "jpy", "jpy": "jpy", "日元": "jpy",
}
_CURRENCY_PREFIX = {"us$": "usd", "$": "usd", "€": "eur", "£": "gbp", "¥": "cny"}

_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5,
              "六": 6, "七": 7, "八": 8, "九": 9}
_CN_SMALL_UNITS = {"十": 10, "百": 100, "千": 1000}
_CN_CHARS = "零〇一二两三四五六七八九十百千万亿点"

WORD_NUMBERS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}


def _alternatives(words) -> str:
    # Longest first so "per cent" wins over "per" and "公里" over "里".
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_ASCII_UNITS = [u for u in _UNITS if u.isascii()]
_UNIT_RE = (rf"(?:(?P<unit>{_alternatives(_ASCII_UNITS)})(?![A-Za-z])"
            rf"|(?P<cnunit>{_alternatives(u for u in _UNITS if not u.isascii())}))")
_ARABIC = (
    r"\d{1,3}(?:(?:,|'|[ \u00a0\u202f])\d{3})+(?:\.\d+)?(?!\d)"  # 1,234,567 / 1 234 / 1'234
    r"|\d+(?:\.\d+)?"
)
_PATTERN = re.compile(
    # 百分之三 / 百分之3.5
    rf"百分之(?P<pct>[{_CN_CHARS}]+|\d+(?:\.\d+)?)"
    # "three million", "five percent": bare number words are too often not quantities
    # ("one of the ...") to be required in evidence, so only these forms count.
    rf"|\b(?P<word>{_alternatives(WORD_NUMBERS)})\s+"
    rf"(?:(?P<wscale>hundred|thousand|million|billion)\b|(?P<wpct>percent|per cent)\b)"
    # [$]1,234.5 [million|万|k] [unit]   or   三千五百 [unit]
    rf"|(?:(?P<cur>US\$|\$|€|£|¥)?\s?(?<![A-Za-z0-9_.])(?P<num>{_ARABIC})"
    rf"(?:\s*(?P<scale>thousand|million|billion|trillion|bn)(?![A-Za-z])"
    rf"|(?P<k>k)(?![A-Za-z])|\s*(?P<cnscale>万亿|百万|千万|万|亿|千|百))?"
    rf"|(?P<cjk>[零〇一二两三四五六七八九十][{_CN_CHARS}]*))"
    rf"(?:\s*{_UNIT_RE})?",
    re.IGNORECASE,
)


def canonical_value(value: Decimal) -> str:
    """Plain decimal string without exponent or trailing zeros: 1.50E+6 -> "1500000"."""
    text = format(value.normalize(), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _cn_integer(chars: str) -> int | None:
    if not chars:
        return 0
    if all(c in _CN_DIGITS for c in chars):  # digit-by-digit, as in years: 一九八六
        return int("".join(str(_CN_DIGITS[c]) for c in chars))
    total, section, digit, last_unit = 0, 0, None, 1
    for c in chars:
        if c in _CN_DIGITS:
            digit = _CN_DIGITS[c]
        elif c in _CN_SMALL_UNITS:
            last_unit = _CN_SMALL_UNITS[c]
            section += (1 if digit is None else digit) * last_unit
            digit = None
        elif c == "万":
            total += (section + (digit or 0)) * 10**4
            section, digit, last_unit = 0, None, 10**4
        elif c == "亿":
            total = (total + section + (digit or 0)) * 10**8
            section, digit, last_unit = 0, None, 10**8
        else:
            return None
    if digit is not None:
        # A trailing digit right after a unit is shorthand: 三千五 = 3500, not 3005.
        trailing_shorthand = last_unit >= 100 and chars[-2] not in "零〇" and chars[-2] not in _CN_DIGITS
        section += digit * last_unit // 10 if trailing_shorthand else digit
    return total + section


def _cn_number(chars: str) -> Decimal | None:
    whole, _, frac = chars.partition("点")
    integer = _cn_integer(whole)
    if integer is None or not all(c in _CN_DIGITS for c in frac):
        return None
    digits = "".join(str(_CN_DIGITS[c]) for c in frac)
    return Decimal(f"{integer}.{digits}" if digits else str(integer))


def _is_cjk_quantity(chars: str) -> bool:
    # A lone numeral character is usually part of a word (一些, 统一, 十分), so only
    # multi-character numerals with a place unit or digit-by-digit runs count.
    return len(chars) >= 2 and not chars.endswith("点")


def _unit(match: re.Match[str]) -> str | None:
    surface = match.group("unit") or match.group("cnunit")
    return _UNITS[surface.lower()] if surface else None


def extract_numbers(text: str) -> list[NumberMention]:
    """All number mentions in `text`, left to right, with canonical value and unit."""
    return list(_mentions(text))


@memo("numbers.extract_numbers")
def _mentions(text: str) -> tuple[NumberMention, ...]:
    mentions: list[NumberMention] = []
    for m in _PATTERN.finditer(text.translate(_HALF_WIDTH)):
        value: Decimal | None
        unit: str | None = None
        if m.group("pct") is not None:
            pct = m.group("pct")
            value = Decimal(pct) if pct[0].isdigit() else _cn_number(pct)
            unit = "%"
        elif m.group("num") is not None:
            try:
                value = Decimal(re.sub(r"[,' \u00a0\u202f]", "", m.group("num")))
            except InvalidOperation:
                continue
            scale = (m.group("scale") or m.group("k") or m.group("cnscale") or "").lower()
            value *= _SCALES.get(scale, 1)
            cur = m.group("cur")
            unit = _CURRENCY_PREFIX[cur.lower()] if cur else _unit(m)
        elif m.group("cjk") is not None:
            if not _is_cjk_quantity(m.group("cjk")):
                continue
            value = _cn_number(m.group("cjk"))
            unit = _unit(m)
        else:
            value = Decimal(WORD_NUMBERS[m.group("word").lower()])
            if m.group("wscale"):
                value *= {"hundred": 100, **_SCALES}[m.group("wscale").lower()]
            else:
                unit = "%"
        if value is None:
            continue
        start = m.start("cur") if m.group("cur") else m.start()
        # `\s?` before the number may swallow a space; keep `raw` tight.
        while text[start].isspace():
            start += 1
        end = m.end()
        mentions.append(NumberMention(text[start:end].strip(), canonical_value(value), unit,
                                      (start, start + len(text[start:end].rstrip()))))
    return tuple(mentions)


def same_quantity(a: NumberMention, b: NumberMention) -> bool:
    """The same value, and no evidence of different units."""
    # An unknown unit on either side is no evidence of a different unit (seed 17.5:
    # "10 万次" and "100000" are the same count).
    return a.value == b.value and (a.unit is None or b.unit is None or a.unit == b.unit)


def numbers_match(claim_text: str, evidence_text: str) -> list[str]:
    """Raw forms of claim numbers that do not appear in the evidence (empty: all found).

    The name reads as the check it performs; what it returns is what failed it.
    """
    evidence = _mentions(evidence_text)
    missing: list[str] = []
    for mention in _mentions(claim_text):
        if not any(same_quantity(mention, other) for other in evidence) and mention.raw not in missing:
            missing.append(mention.raw)
    return missing
