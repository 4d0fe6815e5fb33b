"""README's install routes: what works today comes first; the routes that need
the plugin in krew's index or on PyPI are said to be planned, not offered."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_readme_offers_only_routes_that_work_today_before_the_planned_ones():
    install = ROOT.joinpath("README.md").read_text().split("## Install\n", 1)[1].split("\n## ", 1)[0]
    today, planned = install.split("Planned, not yet possible:", 1)
    for not_yet in ("kubectl krew install informer", "pipx install kubectl-informer"):
        assert not_yet not in today and not_yet in planned
    assert "pipx install ." in today and "kubectl krew install --manifest=" in today


def test_install_page_says_which_routes_are_planned():
    page = ROOT.joinpath("docs", "install.md").read_text()
    intro = page.split("## 1.", 1)[0]
    assert "not yet in krew's" in intro and "index nor on PyPI" in intro
    assert "<!-- no-run: not on PyPI yet -->" in page and "<!-- no-run: not in krew's index yet -->" in page
