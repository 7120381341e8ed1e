"""``vitou completion bash|zsh|fish``: a shell's completion script, written from the command's own parser."""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from .._version import __version__

SHELLS = ("bash", "zsh", "fish")
DESCRIPTION = (
    "Print the completion script of vitou for a shell: commands, subcommands, options and their values, "
    "written from this vitou's own parser (write it again after an upgrade). "
    "bash: add 'source <(vitou completion bash)' to ~/.bashrc. "
    "zsh: 'vitou completion zsh > ~/.zfunc/_vitou' with ~/.zfunc in $fpath before compinit, "
    "or 'source <(vitou completion zsh)' after compinit. "
    "fish: 'vitou completion fish > ~/.config/fish/completions/vitou.fish'."
)


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser], root: argparse.ArgumentParser) -> None:
    """``root`` is the whole parser: the script is written from it once it is built, when the command runs."""
    comp = sub.add_parser(
        "completion", help="print the completion script for bash, zsh or fish", description=DESCRIPTION
    )
    comp.add_argument("shell", choices=SHELLS, help="the shell to write the script for")

    def run(args: argparse.Namespace) -> int:
        sys.stdout.write(script(root, args.shell))
        return 0

    comp.set_defaults(run=run)


# ------------------------------------------------------------ the parser as data


@dataclass(frozen=True)
class Option:
    flags: tuple[str, ...]
    help: str
    value: str | None  # None: a flag; else "choice", "file", "dir" or "any"
    choices: tuple[str, ...]
    repeat: bool
    names: tuple[str, ...] = ()  # offered besides the files or directories: the shipped rulesets, suites


@dataclass(frozen=True)
class Command:
    path: tuple[str, ...]  # () for vitou itself
    help: str
    options: tuple[Option, ...]
    operands: tuple[Option, ...]  # positional arguments, flags empty
    children: tuple[Command, ...]

    @property
    def name(self) -> str:
        return " ".join(self.path)

    def walk(self) -> list[Command]:
        return [self, *(c for child in self.children for c in child.walk())]


def _text(text: str | None) -> str:
    """A help as one short line: a menu has one line per entry."""
    one = " ".join((text or "").split())
    return one if len(one) <= 100 else one[:97].rsplit(" ", 1)[0] + "..."


def _value(action: argparse.Action) -> str | None:
    if action.nargs == 0:
        return None
    if action.choices:
        return "choice"
    # The metavar says what a value is: FILE, DIR, FILE_OR_DIR, ID|FILE.
    meta = str(action.metavar or "").upper()
    if "FILE" in meta:
        return "file"
    if "DIR" in meta:
        return "dir"
    return "file" if not action.option_strings else "any"


def shipped_by_file() -> tuple[list[str], list[str]]:
    """The shipped rules and profiles by name, from their files' names (``vitou-2p-1.0.0.yaml``: ``vitou-2p/1.0.0``).

    The registry reads each file's header, which takes YAML; a test holds the
    two to the same names.
    """
    from ..rules.data import data_dir

    spec = data_dir("spec")

    def names(directory: Path) -> list[str]:
        stems = sorted(p.name.removesuffix(".yaml") for p in directory.glob("*.yaml"))
        return ["/".join(stem.rsplit("-", 1)) for stem in stems]

    return names(spec), names(spec / "profiles")


# The options whose values may be names vitou ships, by dest: the names are offered with the files.
NAMED = {"ruleset": "rulesets", "compare_ruleset": "rulesets", "suite": "suites", "dispute": "disputes"}


def shipped_names() -> dict[str, tuple[str, ...]]:
    """The rulesets (each id, and each id/version), the suites and the disputes vitou ships, from file names alone."""
    from ..kit.suite import SHIPPED_SUITES
    from ..rules.data import data_dir

    rules, profiles = shipped_by_file()
    full = [*rules, *profiles]
    ids = sorted({n.split("/", 1)[0] for n in full})
    disputes = sorted(p.stem for p in (data_dir("conformance") / "disputes").glob("*-*.yaml"))
    return {"rulesets": (*ids, *sorted(full)), "suites": tuple(SHIPPED_SUITES), "disputes": tuple(disputes)}


def command(
    parser: argparse.ArgumentParser,
    path: tuple[str, ...] = (),
    summary: str = "",
    names: dict[str, tuple[str, ...]] | None = None,
) -> Command:
    """The command tree under ``parser``: what a completion script needs of it (``names``: see shipped_names)."""
    names = names or {}
    formatter = parser._get_formatter()
    options: list[Option] = []
    operands: list[Option] = []
    children: list[Command] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            children += [command(p, (*path, n), _text(helps.get(n)), names) for n, p in action.choices.items()]
            continue
        if action.help == argparse.SUPPRESS:
            continue
        item = Option(
            tuple(action.option_strings),
            _text(formatter._expand_help(action)) if action.help else "",
            _value(action),
            tuple(str(c) for c in action.choices or ()),
            isinstance(action, argparse._AppendAction) or action.nargs in ("+", "*"),
            names.get(NAMED.get(action.dest, ""), ()) if action.option_strings else (),
        )
        (options if action.option_strings else operands).append(item)
    return Command(path, summary or _text(parser.description), tuple(options), tuple(operands), tuple(children))


def script(parser: argparse.ArgumentParser, shell: str) -> str:
    from ..rules.errors import VitouError

    try:
        names = shipped_names()
    except VitouError:  # an installation without its data: files alone
        names = {}
    tree = command(parser, names=names)
    return {"bash": bash, "zsh": zsh, "fish": fish}[shell](tree)


def _header(shell: str) -> str:
    return f"# {shell} completion for vitou {__version__}, written by `vitou completion {shell}`: do not edit.\n"


# ------------------------------------------------------------------ bash


def _sh(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def bash(tree: Command) -> str:
    nodes = tree.walk()
    steps = [f"            {_sh(f'{n.name}|{c.path[-1]}')}) path={_sh(c.name)} ;;" for n in nodes for c in n.children]
    values = []
    for n in nodes:
        for o in n.options:
            if o.value is not None:
                what = "choice " + " ".join(o.choices) if o.value == "choice" else " ".join((o.value, *o.names))
                pattern = "|".join(_sh(f"{n.name}|{f}") for f in o.flags)
                values.append(f"        {pattern}) echo {_sh(what)} ;;")
    words = []
    for n in nodes:
        listed = [c.path[-1] for c in n.children] or [c for o in n.operands for c in o.choices]
        flags = [f for o in n.options for f in o.flags]
        words.append(f"        {_sh(n.name)}) echo {_sh(' '.join(listed))} {_sh(' '.join(flags))} ;;")
    return (
        _header("bash")
        + "# Load it with: source <(vitou completion bash)\n\n"
        + "_vitou_value() {  # $1 the command, $2 an option: what its value is; false for a flag\n"
        + '    case "$1|$2" in\n'
        + "\n".join(values)
        + "\n        *) return 1 ;;\n    esac\n}\n\n"
        + "_vitou_words() {  # $1 the command: its subcommands (or operand values), then its options\n"
        + '    case "$1" in\n'
        + "\n".join(words)
        + "\n    esac\n}\n\n"
        + _BASH_MAIN.replace("@STEPS@", "\n".join(steps))
    )


_BASH_MAIN = """_vitou() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} path='' word i skip=0 value
    # bash splits --option=value at the '=': complete the value of the option before it.
    if [[ $cur == = ]]; then
        cur=''
    elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
        prev=${COMP_WORDS[COMP_CWORD-2]}
    fi
    for ((i = 1; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        if ((skip)) || [[ $word == = ]]; then
            skip=0
            continue
        fi
        case "$path|$word" in
@STEPS@
        esac
        _vitou_value "$path" "$word" >/dev/null && skip=1
    done
    if value=$(_vitou_value "$path" "$prev"); then
        case $value in
            choice\\ *) COMPREPLY=($(compgen -W "${value#choice }" -- "$cur")) ;;
            dir*) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -W "${value#dir}" -- "$cur") $(compgen -d -- "$cur")) ;;
            file*) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -W "${value#file}" -- "$cur") $(compgen -f -- "$cur")) ;;
            any\\ *) COMPREPLY=($(compgen -W "${value#any }" -- "$cur")) ;;
            *) COMPREPLY=() ;;
        esac
        return 0
    fi
    local listed
    listed=($(_vitou_words "$path"))
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "${listed[*]}" -X '!-*' -- "$cur"))
    else
        COMPREPLY=($(compgen -W "${listed[*]}" -X '-*' -- "$cur"))
    fi
    return 0
}

complete -o default -F _vitou vitou
"""


# ------------------------------------------------------------------- zsh


def _zsh_quote(text: str) -> str:
    return text.replace("'", "'\\''")


def _zsh_help(text: str) -> str:
    return _zsh_quote(re.sub(r"([\[\]:\\])", r"\\\1", text))


def _zsh_action(o: Option) -> str:
    if o.value == "choice":
        return "(" + " ".join(re.sub(r"([\s()\\])", r"\\\1", c) for c in o.choices) + ")"
    files = {"file": "_files", "dir": "_files -/"}.get(o.value or "", "")
    if o.names:  # names are ids, versions and dashes: nothing a shell or a spec would read
        return "{compadd -- " + " ".join(o.names) + (f"; {files}" if files else "") + "}"
    return files or " "


def _zsh_option(o: Option) -> str:
    described = f"[{_zsh_help(o.help)}]"
    tail = "" if o.value is None else f":{_zsh_help(o.flags[-1].lstrip('-'))}:{_zsh_quote(_zsh_action(o))}"
    forms = [f + ("" if o.value is None else "=" if f.startswith("--") else "+") for f in o.flags]
    if len(forms) == 1:
        return "'" + ("*" if o.repeat else "") + forms[0] + described + tail + "'"
    exclude = "'*'" if o.repeat else "'(" + " ".join(o.flags) + ")'"
    return exclude + "{" + ",".join(forms) + "}'" + described + tail + "'"


def _zsh_name(path: tuple[str, ...]) -> str:
    return "_vitou" + "".join("_" + re.sub(r"\W", "_", p) for p in path)


def _zsh_function(n: Command) -> str:
    specs = [_zsh_option(o) for o in n.options]
    for o in n.operands:
        many = "*" if o.repeat else ""
        specs.append(f"'{many}:{_zsh_help(o.help or 'argument')}:{_zsh_quote(_zsh_action(o))}'")
    lines = [f"{_zsh_name(n.path)}() {{"]
    if n.children:
        # The standard pattern: the first word is a subcommand, the words after it are its own.
        lines += ["    local curcontext=$curcontext state state_descr line", "    typeset -A opt_args"]
        specs += ["'1:command:->command'", "'*::argument:->argument'"]
    lines.append("    _arguments -s -S" + (" -C" if n.children else "") + "".join(f" \\\n        {s}" for s in specs))
    if n.children:
        label = _sh(" ".join(("vitou", *n.path, "command")))
        lines += ["    case $state in", "        command)", "            local -a commands=("]
        lines += [f"                '{_zsh_help(c.path[-1])}:{_zsh_help(c.help)}'" for c in n.children]
        lines += ["            )", f"            _describe -t commands {label} commands", "            ;;"]
        lines += ["        argument)", "            case $line[1] in"]
        lines += [f"                {c.path[-1]}) {_zsh_name(c.path)} ;;" for c in n.children]
        lines += ["            esac", "            ;;", "    esac"]
    return "\n".join([*lines, "}"]) + "\n"


def zsh(tree: Command) -> str:
    return (
        "#compdef vitou\n"
        + _header("zsh")
        + "# Save it as _vitou in a directory of $fpath, or: source <(vitou completion zsh) after compinit\n\n"
        + "\n".join(_zsh_function(n) for n in tree.walk())
        + '\nif [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then\n    _vitou "$@"\nelse\n'
        + "    compdef _vitou vitou\nfi\n"
    )


# ------------------------------------------------------------------ fish


def _fish(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def fish(tree: Command) -> str:
    nodes = tree.walk()
    steps = " ".join(_fish(f"{n.name}/{c.path[-1]}") for n in nodes for c in n.children)
    takes = " ".join(_fish(f"{n.name}/{f}") for n in nodes for o in n.options if o.value is not None for f in o.flags)
    lines = [
        _header("fish") + "# Save it as ~/.config/fish/completions/vitou.fish\n",
        "function __vitou_path --description 'the vitou command typed so far'",
        "    set -l path",
        "    set -l skip 0",
        "    for t in (commandline -opc)[2..-1]",
        "        if test $skip -eq 1",
        "            set skip 0",
        "            continue",
        "        end",
        "        set -l here (string join ' ' $path)",
        f'        if contains -- "$here/$t" {steps}',
        "            set -a path $t",
        f'        else if contains -- "$here/$t" {takes}',
        "            set skip 1",
        "        end",
        "    end",
        "    string join ' ' $path",
        "end\n",
        "function __vitou_at --argument-names want --description 'whether the command typed so far is want'",
        "    set -l path (__vitou_path)",
        '    test "$path" = "$want"',
        "end\n",
        "complete -c vitou -f",
    ]
    for n in nodes:
        at = f"-n {_fish('__vitou_at ' + _sh(n.name))}"
        lines += [f"complete -c vitou {at} -a {_fish(c.path[-1])} -d {_fish(c.help)}" for c in n.children]
        for o in n.options:
            flags = " ".join(f"-l {f[2:]}" if f.startswith("--") else f"-s {f[1:]}" for f in o.flags)
            named = " ".join(o.names)
            value = {
                None: "",
                "choice": f" -x -a {_fish(' '.join(o.choices))}",
                "file": f" -r -F -a {_fish(named)}" if named else " -r -F",
                "any": f" -x -a {_fish(named)}" if named else " -x",
            }
            what = value.get(o.value, f" -x -a {_fish((named + ' (__fish_complete_directories)').strip())}")
            lines.append(f"complete -c vitou {at} {flags}{what} -d {_fish(o.help)}")
        for o in n.operands:
            what = f"-a {_fish(' '.join(o.choices))}" if o.choices else "-F"
            lines.append(f"complete -c vitou {at} {what} -d {_fish(o.help)}")
    return "\n".join(lines) + "\n"


__all__ = ["NAMED", "SHELLS", "Command", "Option", "add_parsers", "command", "script", "shipped_names"]
