"""The files of a new plugin: the kernel's template, rendered for one plugin's names.

The template is package data (`plugin_template/`, beside this module), one file for each
file it makes, so it reads as the plugin it becomes (see `retinue.cli.template_files`); in
its paths, the folder `PACKAGE` becomes the package and `NAME` the plugin's slug.

docs/example-plugin is this template rendered for `notes`, committed, and checked against it
by the docs checker: it is linted, type-checked and tested with the rest of the repository,
which the template's `.tmpl` files cannot be.
"""

from __future__ import annotations

import ast

from retinue.cli.plugin_names import PluginNames, kernel_requirement
from retinue.cli.template_files import render_template

CARD_MODULE = "src/PACKAGE/card.py"
"""The template's card, whose command method is named after the plugin."""


def render(names: PluginNames, kernel_version: str) -> dict[str, str]:
    """Every file of the new plugin, by its path in the plugin's folder, sorted."""
    values = {
        "name": names.name,
        "slug": names.slug,
        "distribution": names.distribution,
        "package": names.package,
        "stem": names.stem,
        "card_class": names.card_class,
        "title": names.title,
        "kernel_requirement": kernel_requirement(kernel_version),
    }
    renames = {"PACKAGE": names.package, "NAME": names.slug}
    return render_template("plugin_template", values, renames)


def card_members(kernel_version: str) -> frozenset[str]:
    """The names the template's card class defines itself (`take_note`, `max_notes`, ...).

    The card's command is a method named after the plugin, so a plugin cannot be named like
    any of these: it would replace one. Read from the template rendered for a probe name.
    """
    probe = PluginNames.of("probe")
    source = render(probe, kernel_version)[CARD_MODULE.replace("PACKAGE", probe.package)]
    tree = ast.parse(source)
    (card,) = [
        node
        for node in tree.body
        if isinstance(node, ast.ClassDef) and node.name == probe.card_class
    ]
    defined: set[str] = set()
    for node in card.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            defined.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            defined.add(node.target.id)
    return frozenset(defined - {probe.slug})
