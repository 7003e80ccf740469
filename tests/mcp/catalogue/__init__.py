"""Tests of what the catalogue offers agents: toolsets, lean definitions and their size, the
description examples, contact sheets, prompts and resource templates."""
