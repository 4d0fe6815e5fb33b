"""``kubectl_complete-informer``: shell completion for ``kubectl informer``.

kubectl (1.26+) completes a plugin's words by running the executable
``kubectl_complete-<plugin>`` found on PATH with the words typed after the
plugin's name, the last one being the word to complete ("" for a new word).
It expects cobra's ``__complete`` answer: one candidate a line (optionally
``value<TAB>description``), then ``:<directive>``. Candidates come from the
click command tree (subcommands, flags, choices), the kubeconfig (contexts),
the cluster (resources from discovery, object names, namespaces; GETs only,
a few seconds at most) or the simulator (``--demo``: its scenarios,
resources, namespaces).
Nothing ever goes to stderr: kubectl shows it to the user mid-line.
A candidate holding whitespace, a shell metacharacter or a control character
is never offered (``offered``): the shell would run what it holds.
"""

from __future__ import annotations

import contextlib
import re
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import click

from kubectl_informer.core.printable import printable
from kubectl_informer.core.scope import Scope

# cobra's ShellCompDirective bits
DEFAULT = 0  # the shell may fall back to file names
NO_SPACE = 2
NO_FILE_COMP = 4

# The cluster gets this long to answer, as kubectl's own completion (5s).
CLUSTER_TIMEOUT = 5.0

FILE_OPTIONS = {"kubeconfig", "record", "write_kubeconfig"}
RATE_LIMITERS = ("default", "exponential:", "fastslow:", "bucket:")


@dataclass
class Parsed:
    """What the words before the one being completed say."""

    command: click.Command
    values: dict[str, str] = field(default_factory=dict)  # option name -> value given
    positional: list[str] = field(default_factory=list)
    pending: click.Option | None = None  # an option still waiting for its value


def _find_option(cmd: click.Command, flag: str) -> click.Option | None:
    for p in cmd.params:
        if isinstance(p, click.Option) and (flag in p.opts or flag in p.secondary_opts):
            return p
    return None


def _takes_value(opt: click.Option) -> bool:
    return not opt.is_flag and not opt.count


def parse(root: click.Group, words: list[str]) -> Parsed:
    state = Parsed(root)
    i = 0
    while i < len(words):
        w, i = words[i], i + 1
        if not w.startswith("-") or w == "-":
            group = state.command if isinstance(state.command, click.Group) else None
            if group is not None and w in group.commands and not state.positional:
                state.command = group.commands[w]
            else:
                state.positional.append(w)
            continue
        name, eq, value = w.partition("=")
        opt = _find_option(state.command, name)
        if opt is None:
            continue
        if eq:
            state.values[opt.name] = value
        elif not _takes_value(opt):
            state.values[opt.name] = "true"
        elif i == len(words):
            state.pending = opt
        elif getattr(opt, "_flag_needs_value", False) and words[i].startswith("-"):
            state.values[opt.name] = ""  # an optional value (--demo) left out
        else:
            state.values[opt.name], i = words[i], i + 1
    return state


_SENTENCE_END = re.compile(r"(?<=[a-z0-9)])\. (?=[A-Z])")


def _one_line(text: str | None, limit: int = 60) -> str:
    """The first sentence of ``text``, cut to ``limit``: a candidate's description."""
    text = " ".join((text or "").split())
    first = _SENTENCE_END.split(text)[0].rstrip(".")
    return first if len(first) <= limit else first[: limit - 3].rstrip() + "..."


def _flags(cmd: click.Command, prefix: str, given: set[str]) -> list[str]:
    """The command's flags, but not those already given (as cobra does)."""
    out = []
    for p in cmd.params:
        if not isinstance(p, click.Option) or p.hidden or p.name in given:
            continue
        desc = _one_line(p.help)
        for flag in [*p.opts, *p.secondary_opts]:
            if flag.startswith("--") or prefix in ("", "-"):
                out.append(f"{flag}\t{desc}" if desc else flag)
    out.append("--help\tShow this help.")
    if prefix in ("", "-"):
        out.append("-h\tShow this help.")
    return out


def _filter(cands: list[str], prefix: str) -> list[str]:
    return [c for c in cands if c.split("\t", 1)[0].startswith(prefix)]


# --- where values come from -------------------------------------------------------------


def _with_deadline(fn: Callable[[], list[str]], seconds: float = CLUSTER_TIMEOUT) -> list[str]:
    """``fn()``, or nothing if it fails or takes longer than ``seconds`` (a
    daemon thread: an unanswering cluster never holds the shell)."""
    box: list[list[str]] = []

    def run() -> None:
        with contextlib.suppress(Exception):
            box.append(fn())

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    # Names from a cluster or a kubeconfig, before any description is added (a TAB in a name
    # would read as one): only those a shell may see (``offered`` checks again at the end).
    return [name for name in box[0] if shell_safe(name)] if box else []


def scenario_names() -> list[str]:
    from kubectl_informer.sim.scenarios import SCENARIOS

    return [f"{name}\t{_one_line(s.description)}" for name, s in SCENARIOS.items()]


def _sim_resources() -> list[str]:
    from kubectl_informer.sim.resources import Registry

    return [d.qualified for d in Registry().defs]


def _sim_namespaces() -> list[str]:
    from kubectl_informer.sim.demo import DEMO_LAYOUT

    return list(DEMO_LAYOUT)


def context_names(kubeconfig: str | None) -> list[str]:
    """Context names of the kubeconfig kubectl would read, first file wins."""
    import yaml

    from kubectl_informer.kube.config import _kubeconfig_paths

    names: list[str] = []
    for path in _kubeconfig_paths(kubeconfig):
        with open(path) as f:
            doc = yaml.safe_load(f) or {}
        for c in doc.get("contexts") or []:
            if isinstance(c, dict) and c.get("name") and c["name"] not in names:
                names.append(str(c["name"]))
    return names


def _cluster_resources(kubeconfig: str | None, context: str | None) -> list[str]:
    from kubectl_informer.kube.config import load_kube
    from kubectl_informer.kube.discovery import Discovery

    disc = Discovery(load_kube(kubeconfig, context).api_client)
    names: list[str] = []
    for r in disc.ordered():
        if {"list", "watch"} <= set(r.verbs) and r.qualified_name not in names:
            names.append(r.qualified_name)
    return names


def _cluster_namespaces(kubeconfig: str | None, context: str | None) -> list[str]:
    from kubectl_informer.kube import rest
    from kubectl_informer.kube.config import load_kube
    from kubectl_informer.kube.limits import MAX_LIST_BODY

    body = rest.get_json(
        load_kube(kubeconfig, context).api_client,
        "/api/v1/namespaces",
        timeout=(CLUSTER_TIMEOUT, CLUSTER_TIMEOUT),
        max_bytes=MAX_LIST_BODY,
    )
    return [i["metadata"]["name"] for i in body.get("items") or []]


def _cluster_object_names(p: Parsed) -> list[str]:
    """Names of RESOURCE's objects in the namespace the run would watch."""
    from kubectl_informer.kube import rest
    from kubectl_informer.kube.config import load_kube
    from kubectl_informer.kube.discovery import Discovery

    target = load_kube(p.values.get("kubeconfig"), p.values.get("context"))
    res = Discovery(target.api_client).resolve(p.positional[0])
    # The run's own rule; a -n typed for a cluster-scoped resource is ignored here.
    asked = Scope(
        None if "all_namespaces" in p.values else p.values.get("namespace"),
        "all_namespaces" in p.values,
        inherited=True,
    )
    ns = asked.resolve(res.namespaced, target.namespace).namespace
    body = rest.get_list(target.api_client, res.path(ns), [("limit", 500)], timeout=(CLUSTER_TIMEOUT, CLUSTER_TIMEOUT))
    return sorted({i["metadata"]["name"] for i in body.get("items") or []})


def _from_cluster_or_sim(p: Parsed, sim: Callable[[], list[str]], cluster: Callable) -> list[str]:
    if "demo" in p.values:
        return sim()
    return _with_deadline(lambda: cluster(p.values.get("kubeconfig"), p.values.get("context")))


# --- answers -------------------------------------------------------------------------------


def option_values(p: Parsed, opt: click.Option) -> tuple[list[str], int]:
    """Candidates for ``opt``'s value."""
    if opt.name in FILE_OPTIONS:
        return [], DEFAULT
    if opt.name in ("demo", "scenario"):
        return scenario_names(), NO_FILE_COMP
    if opt.name == "context":
        return _with_deadline(lambda: context_names(p.values.get("kubeconfig"))), NO_FILE_COMP
    if opt.name == "namespace":
        return _from_cluster_or_sim(p, _sim_namespaces, _cluster_namespaces), NO_FILE_COMP
    if opt.name == "owns":
        return _from_cluster_or_sim(p, _sim_resources, _cluster_resources), NO_FILE_COMP
    if opt.name == "client_go":
        from kubectl_informer.cli.main import CLIENT_GO_PROFILES

        return list(CLIENT_GO_PROFILES), NO_FILE_COMP
    if opt.name == "rate_limiter":
        return list(RATE_LIMITERS), NO_FILE_COMP | NO_SPACE
    if isinstance(opt.type, click.Choice):
        return [str(c) for c in opt.type.choices], NO_FILE_COMP
    return [], NO_FILE_COMP


def positional_values(p: Parsed) -> tuple[list[str], int]:
    name = p.command.name
    if name in ("watch", "queue") and not p.positional:
        return _from_cluster_or_sim(p, _sim_resources, _cluster_resources), NO_FILE_COMP
    if name == "watch" and len(p.positional) == 1 and "demo" not in p.values:
        return _with_deadline(lambda: _cluster_object_names(p)), NO_FILE_COMP
    if name == "replay" and not p.positional:
        return [], DEFAULT
    return [], NO_FILE_COMP


# Never in a candidate: a shell would read them as syntax (bash's completion
# inserts a candidate as typed: ``cm$(touch${IFS}x)`` runs a command).
SHELL_SPECIAL = frozenset("$`;&|<>(){}*?[]!#~'\"\\^%")


def shell_safe(candidate: str) -> bool:
    """Whether a candidate's value can be offered to a shell as it is: no
    whitespace, no shell metacharacter, nothing a terminal acts on."""
    # isprintable: no control, format (bidi, zero-width) or separator character, nor any space but " ".
    return candidate.isprintable() and not any(ch == " " or ch in SHELL_SPECIAL for ch in candidate)


def offered(cands: list[str]) -> list[str]:
    """The candidates a shell may see: those whose value (before the TAB)
    is ``shell_safe``, each description shown printable. A name that is
    not (an object or a context named by someone else) is left out: typed
    out in quotes it still works."""
    out = []
    for c in cands:
        value, tab, desc = c.partition("\t")
        if value and shell_safe(value):
            out.append(f"{value}\t{printable(desc)}" if tab else value)
    return out


def complete(root: click.Group, args: list[str]) -> tuple[list[str], int]:
    """Candidates and directive for ``args`` (the words after the plugin's
    name, the last one the word being completed); only ``offered`` ones."""
    cands, directive = _complete(root, args)
    return offered(cands), directive


def _complete(root: click.Group, args: list[str]) -> tuple[list[str], int]:
    words, word = (args[:-1], args[-1]) if args else ([], "")
    p = parse(root, words)
    if p.pending is not None:
        cands, directive = option_values(p, p.pending)
        if p.pending.name == "owns":
            return _in_list(cands, word), directive
        return _filter(cands, word), directive
    if word.startswith("-") and "=" in word:
        flag, _, value = word.partition("=")
        opt = _find_option(p.command, flag)
        if opt is None or not _takes_value(opt):
            return [], NO_FILE_COMP
        cands, directive = option_values(p, opt)
        matched = _in_list(cands, value) if opt.name == "owns" else _filter(cands, value)
        return [f"{flag}={c}" for c in matched], directive
    if word.startswith("-"):
        return _filter(_flags(p.command, word, set(p.values)), word), NO_FILE_COMP
    if isinstance(p.command, click.Group):
        if p.positional:  # an unknown subcommand: nothing follows it
            return [], NO_FILE_COMP
        subs = [f"{n}\t{_one_line(c.get_short_help_str(80))}" for n, c in p.command.commands.items() if not c.hidden]
        return _filter(subs, word), NO_FILE_COMP
    cands, directive = positional_values(p)
    if p.command.name == "watch" and not p.positional:
        return _in_list(cands, word), directive
    return _filter(cands, word), directive


def _in_list(cands: list[str], word: str) -> list[str]:
    """Resources for the last of a comma list (``watch deploy,rs,po``), each
    with the list typed so far before it."""
    head, comma, last = word.rpartition(",")
    return [f"{head}{comma}{c}" for c in _filter(cands, last)]


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point (``kubectl_complete-informer``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["__complete"]:  # also answer when called the way cobra programs are
        args = args[1:]
    try:
        from kubectl_informer.cli.main import cli

        cands, directive = complete(cli, args)
    except Exception:  # noqa: BLE001  completion never fails the shell: no candidates
        cands, directive = [], NO_FILE_COMP
    out = "".join(f"{c}\n" for c in cands) + f":{directive}\n"
    try:
        sys.stdout.write(out)
        sys.stdout.flush()
    except (BrokenPipeError, OSError):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
