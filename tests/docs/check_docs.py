#!/usr/bin/python3
"""Checks the user-facing documentation against the binary and itself.

Usage: check_docs.py ROOT BINARY

1. Every long flag that `BINARY [command] --help` lists appears in the man page that BINARY
   writes (`BINARY man`) and in README.md or docs/*.md.
2. Every relative link in README.md and docs/*.md resolves: the file exists and, with
   `#anchor`, the target has a heading with that anchor (GitHub's slugs).
3. No user-facing text (README, docs, man pages, --help) speaks of how the project is built:
   work sessions, issue numbers, "the issue".
4. README.md has at most 400 lines, none over 100 characters outside tables and code blocks.
Prints one line per problem and exits 1 on any; prints a count and exits 0 otherwise.
"""
import glob
import os
import re
import subprocess
import sys

COMMANDS = ["", "run", "serve", "merge", "report", "link"]
PROCESS_WORDS = [
    re.compile(r"\bsessions? \d+", re.I),
    re.compile(r"\b(this|that|earlier|previous|next) sessions?'?s?\b(?! (ticket|resum|cache|id))", re.I),
    re.compile(r"\bsession's\b", re.I),
    re.compile(r"\bissues? #?\d+", re.I),
    re.compile(r"\bthe issue\b", re.I),
    re.compile(r"(?<![\w/])#\d{1,3}\b"),
]


def help_text(binary, command):
    args = [binary] + ([command] if command else []) + ["--help"]
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


def long_flags(text):
    """The long names at the start of each option line (`  -n,--requests UINT ...`)."""
    flags = set()
    for line in text.splitlines():
        if re.match(r"^\s+-", line):
            flags.update(n for n in line.split()[0].split(",") if n.startswith("--"))
    return flags


def slug(heading):
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    found, code = set(), False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            code = not code
        elif not code and line.startswith("#"):
            found.add(slug(line.lstrip("#")))
    return found


def check_links(root, pages, problems):
    link = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
    for page in pages:
        code = False
        for number, line in enumerate(open(page, encoding="utf-8"), 1):
            if line.startswith("```"):
                code = not code
            if code:
                continue
            for target in link.findall(line):
                if re.match(r"^[a-z]+:", target):
                    continue  # http:, https:, mailto: — not ours to resolve offline.
                path, _, anchor = target.partition("#")
                resolved = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
                where = f"{os.path.relpath(page, root)}:{number}"
                if not os.path.exists(resolved):
                    problems.append(f"{where}: link to a missing file: {target}")
                elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
                    problems.append(f"{where}: link to a missing heading: {target}")


def check_readme_shape(readme, problems):
    lines = open(readme, encoding="utf-8").read().splitlines()
    if len(lines) > 400:
        problems.append(f"README.md: {len(lines)} lines (at most 400; the rest belongs in docs/)")
    code = False
    for number, line in enumerate(lines, 1):
        if line.startswith("```"):
            code = not code
        elif not code and not line.startswith("|") and len(line) > 100:
            problems.append(f"README.md:{number}: {len(line)} characters (at most 100)")


def check_words(name, text, problems):
    for number, line in enumerate(text.splitlines(), 1):
        for pattern in PROCESS_WORDS:
            match = pattern.search(line)
            if match:
                problems.append(f"{name}:{number}: speaks of the project's process: '{match.group(0)}'")


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    root, binary = sys.argv[1], sys.argv[2]
    problems = []
    pages = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    docs_text = "".join(open(p, encoding="utf-8").read() for p in pages)
    man = subprocess.run([binary, "man"], capture_output=True, text=True, check=True).stdout
    man_plain = man.replace("\\-", "-")
    checked = 0
    for command in COMMANDS:
        text = help_text(binary, command)
        check_words(f"{command or 'uringload'} --help", text, problems)
        flags = long_flags(text)
        if len(flags) < 2:
            problems.append(f"'{command} --help': no flags found (the parser is out of date)")
        for flag in sorted(flags - {"--help", "--version"}):
            checked += 1
            if flag not in man_plain:
                problems.append(f"{command or 'uringload'} {flag}: not in the man page")
            if not re.search(re.escape(flag) + r"(?![a-z0-9-])", docs_text):
                problems.append(f"{command or 'uringload'} {flag}: not in README.md or docs/")
    check_links(root, pages, problems)
    check_readme_shape(pages[0], problems)
    for page in pages:
        check_words(os.path.relpath(page, root), open(page, encoding="utf-8").read(), problems)
    for roff in [os.path.join(root, "cli", "man_page.roff")] + glob.glob(os.path.join(root, "deploy", "man", "*")):
        if os.path.exists(roff):
            check_words(os.path.relpath(roff, root), open(roff, encoding="utf-8").read(), problems)
    for p in problems:
        print(f"check-docs: {p}")
    if problems:
        return 1
    print(f"check-docs: {checked} flags in the man page and docs, {len(pages)} pages' links resolve, no process words, README in shape")
    return 0


if __name__ == "__main__":
    sys.exit(main())
