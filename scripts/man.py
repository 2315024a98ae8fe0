#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes KeychainKit's man pages from their one source each, so that they
cannot drift from what they document:

- section 1, from the programs' own --help (and --version): keychainkit(1)
  and each helper program's page (git-credential-keychainkit(1), ...);
- section 3, from include/keychainkit.h's doc comments: keychainkit(3), an
  overview of the header's sections, and one page per exported function.

    scripts/man.py OUT_DIR HEADER PROGRAM [HELPER ...]

PROGRAM is the built keychainkit; each HELPER is a path to one of its other
names (git-credential-keychainkit, ...), whose --help is its own. Writes
OUT_DIR/man1/*.1 and OUT_DIR/man3/*.3; prints the files written.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Tuple

MANUAL = "KeychainKit"


def escape(text: str) -> str:
    """Text for roff: backslashes and hyphens escaped, no line starting with
    a control character."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\n".join(("\\&" + line if line[:1] in (".", "'") else line) for line in text.split("\n"))


def header_line(name: str, section: int, version: str) -> str:
    return f'.TH "{name.upper()}" "{section}" "" "{MANUAL} {version}" "{MANUAL} Manual"'


# ---------------------------------------------------------------------------
# Section 1: from --help
# ---------------------------------------------------------------------------

def run(program: str, argument: str) -> str:
    done = subprocess.run([program, argument], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"man.py: {program} {argument} exited with {done.returncode}: {done.stderr}")
    return done.stdout


def blocks(help_text: str) -> Tuple[List[str], Dict[str, List[Tuple[str, str]]], List[str]]:
    """Splits --help into its usage lines, its labelled blocks ("commands:",
    "options:", "environment:", "exit codes:" ...: each a list of (term,
    text)), and its other paragraphs, in order."""
    usage: List[str] = []
    labelled: Dict[str, List[Tuple[str, str]]] = {}
    prose: List[str] = []
    for paragraph in re.split(r"\n\s*\n", help_text.strip("\n")):
        lines = paragraph.split("\n")
        if lines[0].startswith("usage: "):
            usage = [line.replace("usage: ", "", 1).strip() for line in lines]
        elif re.fullmatch(r"[a-z][a-z ]*:", lines[0]):
            entries: List[Tuple[str, str]] = []
            for line in lines[1:]:
                # An entry: two spaces, the term, two or more spaces, its text;
                # a deeper-indented line continues the text (or, after a term
                # alone on its line, starts it).
                match = re.fullmatch(r"  (\S.*?)(?: {2,}(\S.*))?", line)
                if match and not line.startswith("   "):
                    entries.append((match.group(1), match.group(2) or ""))
                elif entries:
                    term, text = entries[-1]
                    entries[-1] = (term, (text + " " + line.strip()).strip())
            labelled[lines[0][:-1]] = entries
        else:
            prose.append(" ".join(line.strip() for line in lines))
    return usage, labelled, prose


def page1(name: str, summary: str, help_text: str, version: str, see_also: List[str]) -> str:
    usage, labelled, prose = blocks(help_text)
    out = [header_line(name, 1, version), ".SH NAME", f"{escape(name)} \\- {escape(summary)}", ".SH SYNOPSIS"]
    for line in usage:
        out += [".nf", escape(line), ".fi"]
    if prose:
        out.append(".SH DESCRIPTION")
        for paragraph in prose:
            out += [".PP", escape(paragraph)]
    titles = {"exit codes": "EXIT STATUS"}
    for label, entries in labelled.items():
        out.append(f".SH {titles.get(label, label.upper())}")
        for term, text in entries:
            out += [".TP", f"\\fB{escape(term)}\\fR", escape(text)]
    out += [".SH SEE ALSO", ",\n".join(f".BR {page} ({section})" for page, section in see_also)]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# Section 3: from the header
# ---------------------------------------------------------------------------

def comment_text(comment: str) -> str:
    """The text of a /** ... */ or /* ... */ comment, its paragraphs kept."""
    body = re.sub(r"^/\*\*?|\*/$", "", comment.strip())
    lines = [re.sub(r"^\s*\*? ?", "", line) for line in body.split("\n")]
    return "\n".join(lines).strip()


def paragraphs(text: str) -> List[str]:
    """roff for text whose paragraphs are separated by blank lines and whose
    "- " lines are list items."""
    out: List[str] = []
    for paragraph in re.split(r"\n\s*\n", text):
        items = re.split(r"\n(?=- )", paragraph)
        if items[0].startswith("- ") or len(items) > 1:
            if not items[0].startswith("- "):
                out += [".PP", escape(" ".join(items.pop(0).split()))]
            for item in items:
                out += [".IP \\(bu 2", escape(" ".join(item[2:].split()))]
        elif paragraph.startswith("    "):
            out += [".PP", ".nf", ".RS 4", escape("\n".join(line[4:] for line in paragraph.split("\n"))), ".RE", ".fi"]
        else:
            out += [".PP", escape(" ".join(paragraph.split()))]
    return out


def header_parts(header: str) -> Tuple[str, List[Tuple[str, List[Tuple[str, str, str]]]]]:
    """The header's opening comment, and its sections in order: each a title
    and its declarations (kind "function" or "type", name, the declaration,
    its doc comment)."""
    # The opening comment after the licence's one-line SPDX comment.
    intro = comment_text(re.match(r"\s*(?:/\* SPDX-License-Identifier: [^*]*\*/\s*)?(/\*.*?\*/)", header, re.S).group(1))
    sections: List[Tuple[str, List[Tuple[str, str, str]]]] = []
    banner = re.compile(r"/\* -{20,} \*/\n/\* (\w[\w ]*?)\s*\*/\n/\* -{20,} \*/")
    starts = [(match.start(), match.end(), match.group(1)) for match in banner.finditer(header)]
    for index, (_, end, title) in enumerate(starts):
        stop = starts[index + 1][0] if index + 1 < len(starts) else len(header)
        body = header[end:stop]
        declarations = []
        for match in re.finditer(
            r"(/\*\*(?:(?!\*/).)*\*/)\s*\n((?:KK_API [^;]*;)|(?:typedef (?:struct|enum) \w+ \{.*?\} \w+;)"
            r"|(?:typedef struct \w+ \w+;)|(?:#define KK_\w+[^\n]*(?:\\\n[^\n]*)*))",
            body, re.S,
        ):
            declaration = match.group(2)
            function = re.search(r"(kk_\w+)\(", declaration) if declaration.startswith("KK_API") else None
            if function:
                declarations.append(("function", function.group(1), declaration, comment_text(match.group(1))))
            else:
                name = re.search(r"(?:#define |\} |typedef struct \w+ )(\w+)", declaration)
                declarations.append(("type", name.group(1) if name else "", declaration, comment_text(match.group(1))))
        sections.append((title, declarations))
    return intro, sections


def first_sentence(text: str) -> str:
    sentence = re.split(r"(?<=[.:])\s", " ".join(text.split()), maxsplit=1)[0]
    return sentence.rstrip(".:")


def function_page(name: str, declaration: str, doc: str, version: str) -> str:
    prototype = re.sub(r"^KK_API ", "", " ".join(declaration.split()))
    return "\n".join([
        header_line(name, 3, version), ".SH NAME", f"{escape(name)} \\- {escape(first_sentence(doc))}",
        ".SH SYNOPSIS", ".nf", ".B #include <keychainkit.h>", ".PP", f".BI \"{escape(prototype)}\"", ".fi",
        ".PP", "Link with \\fIpkg\\-config \\-\\-cflags \\-\\-libs keychainkit\\fR.",
        ".SH DESCRIPTION", *paragraphs(doc),
        ".SH SEE ALSO", ".BR keychainkit (3)",
    ]) + "\n"


def overview_page(intro: str, sections, version: str) -> str:
    out = [header_line("keychainkit", 3, version), ".SH NAME", "keychainkit \\- the C interface of KeychainKit",
           ".SH SYNOPSIS", ".nf", ".B #include <keychainkit.h>", ".fi", ".PP",
           "Link with \\fIpkg\\-config \\-\\-cflags \\-\\-libs keychainkit\\fR.", ".SH DESCRIPTION"]
    intro_text = re.sub(r"^keychainkit\.h — the C interface of KeychainKit\.\s*", "", intro)
    intro_text = re.sub(r"\n\s*Link with `pkg-config[^\n]*$", "", intro_text.strip())
    conventions = intro_text.split("\nConventions\n", 1)
    out += paragraphs(conventions[0])
    if len(conventions) == 2:
        out += [".SS Conventions", *paragraphs(conventions[1])]
    functions: List[str] = []
    for title, declarations in sections:
        out.append(f".SH {escape(title.upper())}")
        for kind, name, declaration, doc in declarations:
            if kind == "function":
                functions.append(name)
                out += [".TP", f".BR {name} (3)", escape(first_sentence(doc)) + "."]
            else:
                out += [".PP", ".nf", ".RS 4", escape(declaration), ".RE", ".fi", *paragraphs(doc)]
    out += [".SH SEE ALSO", ",\n".join(f".BR {name} (3)" for name in functions)]
    return "\n".join(out) + "\n"


def main(arguments: List[str]) -> None:
    if len(arguments) < 3:
        sys.exit(__doc__)
    out, header_path, program, helpers = Path(arguments[0]), Path(arguments[1]), arguments[2], arguments[3:]
    header = header_path.read_text()
    version = ".".join(re.search(rf"#define KK_VERSION_{part} (\d+)", header).group(1) for part in ("MAJOR", "MINOR", "PATCH"))
    written: List[Path] = []

    def write(path: Path, text: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        written.append(path)

    helper_names = [os.path.basename(helper) for helper in helpers]
    write(out / "man1" / "keychainkit.1", page1(
        "keychainkit", "store, read and watch secrets in the Linux keychain", run(program, "--help"), version,
        [(name, 1) for name in helper_names] + [("keychainkit", 3), ("secret-tool", 1)]))
    for helper, name in zip(helpers, helper_names):
        help_text = run(helper, "--help")
        summary = re.search(r"^\S.*$", help_text.split("\n\n", 1)[1] if "\n\n" in help_text else "", re.M)
        write(out / "man1" / f"{name}.1", page1(
            name, first_sentence(summary.group(0)) if summary else name, help_text, version,
            [("keychainkit", 1)] + [(other, 1) for other in helper_names if other != name]))

    intro, sections = header_parts(header)
    write(out / "man3" / "keychainkit.3", overview_page(intro, sections, version))
    for title, declarations in sections:
        for kind, name, declaration, doc in declarations:
            if kind == "function":
                write(out / "man3" / f"{name}.3", function_page(name, declaration, doc, version))
    for path in written:
        print(path)


if __name__ == "__main__":
    main(sys.argv[1:])
