#!/usr/bin/env python3
"""Reads what adhocbuild wrote to a CI channel the way that CI server reads it, independently of
adhocbuild's own encoders, and prints {"count": N, "values": {name: value}} as JSON. Two entries of
one name, or a line the server would refuse, are errors (exit 1).

  ci_channels.py github FILE      GITHUB_OUTPUT: `name=value` lines, and `name<<DELIMITER` then the
                                  value's lines up to a line that is DELIMITER (GitHub's documented
                                  multi-line syntax; lines end at LF, as the runner on Linux reads
                                  them, so a CR is part of its line).
  ci_channels.py properties FILE  java.util.Properties.load's rules: logical lines with `\\`
                                  continuations, `#`/`!` comments, the key ending at an unescaped `=`,
                                  `:` or blank, escapes \\t \\n \\r \\f \\uXXXX and `\\x` for any other x.
                                  The file is read as ISO-8859-1, as load(InputStream) reads it.
  ci_channels.py dotenv FILE      GitLab's dotenv report: every line `KEY=VALUE` (no empty lines), key
                                  and value trimmed of blanks as Ruby's strip does, the key ASCII
                                  letters, digits and `_`.
  ci_channels.py teamcity FILE    Service messages on standard output: every `##teamcity[` in a line
                                  starts one; `name 'value'` or `name key='value' ...`, values
                                  un-escaped (|' |n |r || |[ |] |0xNNNN). Values are the messages'
                                  single values, or, for setParameter, name -> value; the count is
                                  the number of messages.
"""
import json
import re
import sys


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


def put(values, name, value):
    if name in values:
        fail("two entries named %r" % name)
    values[name] = value


def github(text):
    values = {}
    count = 0
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if line == "":
            continue
        equals, heredoc = line.find("="), line.find("<<")
        if equals >= 0 and (heredoc < 0 or equals < heredoc):
            name, value = line[:equals], line[equals + 1:]
        elif heredoc >= 0:
            name, delimiter = line[:heredoc], line[heredoc + 2:]
            body = []
            while True:
                if index >= len(lines):
                    fail("no line %r ends %r" % (delimiter, name))
                if lines[index] == delimiter:
                    index += 1
                    break
                body.append(lines[index])
                index += 1
            value = "\n".join(body)
        else:
            fail("not an output: %r" % line)
        if name == "":
            fail("an output without a name")
        put(values, name, value)
        count += 1
    return count, values


def properties_logical_lines(text):
    """Properties.load's logical lines: comments and blank lines dropped, continuations joined."""
    physical = re.split(r"\r\n|\r|\n", text)
    index = 0
    while index < len(physical):
        line = physical[index].lstrip(" \t\f")
        index += 1
        if line == "" or line[0] in "#!":
            continue
        while True:
            backslashes = len(line) - len(line.rstrip("\\"))
            if backslashes % 2 == 0 or index >= len(physical):
                break
            line = line[:-1] + physical[index].lstrip(" \t\f")
            index += 1
        yield line


def properties_unescape(text):
    out = []
    index = 0
    while index < len(text):
        char = text[index]
        index += 1
        if char != "\\":
            out.append(char)
            continue
        if index >= len(text):
            break
        char = text[index]
        index += 1
        if char == "u":
            out.append(chr(int(text[index:index + 4], 16)))
            index += 4
        else:
            out.append({"t": "\t", "n": "\n", "r": "\r", "f": "\f"}.get(char, char))
    # Surrogate pairs written as two \\u escapes make one character.
    return "".join(out).encode("utf-16", "surrogatepass").decode("utf-16")


def properties(text):
    values = {}
    count = 0
    for line in properties_logical_lines(text):
        # The key ends at the first unescaped separator or blank; then blanks, at most one `=` or `:`
        # (when a blank ended the key), and blanks again are skipped.
        key_end, value_start, separated, escaped = 0, len(line), False, False
        while key_end < len(line):
            char = line[key_end]
            if char in "=:" and not escaped:
                value_start, separated = key_end + 1, True
                break
            if char in " \t\f" and not escaped:
                value_start = key_end + 1
                break
            escaped = not escaped if char == "\\" else False
            key_end += 1
        while value_start < len(line):
            char = line[value_start]
            if char not in " \t\f":
                if not separated and char in "=:":
                    separated = True
                else:
                    break
            value_start += 1
        put(values, properties_unescape(line[:key_end]), properties_unescape(line[value_start:]))
        count += 1
    return count, values


def dotenv(text):
    values = {}
    count = 0
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    for line in lines:
        match = re.fullmatch(r"(.*?)=(.*)", line)
        if match is None:
            fail("GitLab refuses the line %r" % line)
        ruby_blanks = "\x00\t\n\v\f\r "
        key, value = match.group(1).strip(ruby_blanks), match.group(2).strip(ruby_blanks)
        if not re.fullmatch(r"[A-Za-z0-9_]+", key):
            fail("GitLab refuses the key %r" % key)
        put(values, key, value)
        count += 1
    return count, values


def teamcity_unescape(text):
    out = []
    index = 0
    while index < len(text):
        char = text[index]
        index += 1
        if char != "|":
            out.append(char)
            continue
        char = text[index]
        index += 1
        if char == "0" and text[index] == "x":
            out.append(chr(int(text[index + 1:index + 5], 16)))
            index += 5
        else:
            out.append({"n": "\n", "r": "\r", "'": "'", "|": "|", "[": "[", "]": "]"}[char])
    return "".join(out).encode("utf-16", "surrogatepass").decode("utf-16")


def teamcity(text):
    values = {}
    count = 0
    value = r"'((?:[^'|]|\|.)*)'"
    for line in text.split("\n"):
        for start in [m.start() for m in re.finditer(re.escape("##teamcity["), line)]:
            match = re.match(r"##teamcity\[([A-Za-z][\w-]*)\s+(?:" + value + r"|((?:\s*[\w]+\s*=\s*" + value + r")+))\s*\]",
                             line[start:])
            if match is None:
                fail("a broken service message: %r" % line[start:])
            count += 1
            name = match.group(1)
            if match.group(2) is not None:
                put(values, "%s#%d" % (name, count), teamcity_unescape(match.group(2)))
                continue
            attributes = {k: teamcity_unescape(v) for k, v in re.findall(r"([\w]+)\s*=\s*" + value, match.group(3))}
            if name == "setParameter":
                put(values, attributes["name"], attributes["value"])
            else:
                put(values, "%s#%d" % (name, count), attributes)
    return count, values


if __name__ == "__main__":
    kind, path = sys.argv[1], sys.argv[2]
    raw = open(path, "rb").read()
    text = raw.decode("latin-1") if kind == "properties" else raw.decode("utf-8")
    count, values = {"github": github, "properties": properties, "dotenv": dotenv, "teamcity": teamcity}[kind](text)
    print(json.dumps({"count": count, "values": values}))
