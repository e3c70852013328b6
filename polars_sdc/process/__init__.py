"""The SDC process: a problem with the roles of its columns, steps with undo and a log, and
recipes that replay it (:mod:`.problem`, :mod:`.recipe`)."""
from __future__ import annotations

from .problem import Problem, Roles, Step, sse_sst, step_effects
from .recipe import Recipe, read_recipe, recipe_text, run_recipe

__all__ = ["Problem", "Recipe", "Roles", "Step", "read_recipe", "recipe_text", "run_recipe", "sse_sst", "step_effects"]
