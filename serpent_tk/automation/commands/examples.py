"""The placeholder ids and paths of the description examples. Thread-safe (data only).

Every example is run by `tests/automation/test_description_examples.py` against a fixture
library that maps each placeholder to a real id (`ast_…` → an imported asset) and `HOME` to a
folder of its own, so the examples stay calls that work.
"""

from __future__ import annotations

LIB = "lib_7q2m9x4k"
A1, A2 = "ast_5h8c2v1d", "ast_9r3t6w2e"
F1, F2 = "fld_4k7n1p8s", "fld_2j6b9m3f"
C1, C2 = "col_8d1x5q7r", "col_3v9h2k6t"
L1 = "lnk_6m2p8w4c"
T1 = "tsk_1f7s3n9q"
HOME = "/home/ana"

PLACEHOLDER_IDS = (LIB, A1, A2, F1, F2, C1, C2, L1, T1)
