"""How the luck value functions were fitted and measured, and the study-only versions.

``python -m carioca_experiments.studies.luck.<module>`` runs each from a checkout with
the commands of the luck results pages (``docs/results/luck.md`` links them).  Importing
:mod:`.values` adds versions 1 and 4 to the value-function table of
:mod:`carioca_experiments.evaluation.luck.value`; the fits and measures that need them
import it.
"""

from carioca_experiments.studies.luck import values as _values  # noqa: F401  (versions 1 and 4 join the table)
