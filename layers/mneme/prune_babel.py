"""Keep only the CLDR date and time data in Babel's locale files (a layer build step, not shipped).

mneme uses Babel for one thing: the long localized date and the time of the volatile suffix, in any
language. Babel's locale files carry all of CLDR (currencies, units, territory and language names, ...):
about 32 MB. Keeping the date and time keys of every locale (all languages still work) leaves about a
tenth. ``tests/infra/test_layer_build.py`` checks that dates format identically before and after.

Usage: ``python prune_babel.py <site-packages>/babel/locale-data``
"""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

#: the locale data babel.dates.format_date / format_time read: patterns, day and month names, eras, periods
KEEP = frozenset(
    {
        "date_formats",
        "time_formats",
        "datetime_formats",
        "days",
        "months",
        "quarters",
        "eras",
        "periods",
        "day_periods",
        "day_period_rules",
        "week_data",
    }
)


def prune_file(path: Path) -> tuple[int, int]:
    before = path.stat().st_size
    with path.open("rb") as handle:
        data = pickle.load(handle)  # Babel's own data files, at build time
    kept = {key: value for key, value in data.items() if key in KEEP}
    with path.open("wb") as handle:
        pickle.dump(kept, handle, protocol=pickle.HIGHEST_PROTOCOL)
    return before, path.stat().st_size


def main(argv: list[str]) -> int:
    folder = Path(argv[1])
    files = sorted(folder.glob("*.dat"))
    if not files:
        print(f"prune_babel: no locale files in {folder}", file=sys.stderr)
        return 2
    totals = [prune_file(path) for path in files]
    before, after = sum(b for b, _ in totals), sum(a for _, a in totals)
    print(f"prune_babel: {len(files)} locales, {before / 1e6:.1f} MB -> {after / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
