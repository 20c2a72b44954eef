"""Write tests/fixtures/loghub_2k/messages.json.gz: the message text
(`Content`) of every line of loghub_2k's 16 structured logs, in order, and
the dataset's licence beside it. `make loghub-fixture LOGHUB=<dir>` reruns
it from a copy of loghub_2k (https://github.com/logpai/loghub)."""
import csv
import gzip
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "loghub_2k"


def main(source):
    files = sorted((source / "original").glob("*/*_structured.csv"))
    if not files:
        sys.exit(f"no */*_structured.csv under {source / 'original'}")
    messages = []
    for path in files:
        with open(path, newline="", encoding="utf-8", errors="replace") as f:
            messages += [row["Content"] for row in csv.DictReader(f)]
    OUT.mkdir(parents=True, exist_ok=True)
    # mtime=0: the same input gives the same bytes
    with gzip.GzipFile(OUT / "messages.json.gz", "wb", mtime=0) as f:
        f.write(json.dumps(messages, ensure_ascii=False, indent=0).encode())
    shutil.copy(source / "LICENSE_loghub_2k", OUT / "LICENSE_loghub_2k")
    print(f"{len(messages)} messages from {len(files)} logs")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
