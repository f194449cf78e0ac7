"""The Rediscovery tab of Compare runs: for one run and a reference tokenizer (cl100k, o200k, GPT-2 or a file),
the share of the reference's merged tokens the run has made by step k (a plot card that exports PNG, SVG and CSV
like the others), the run's tokens the reference lacks ranked by how much of the run's corpus they cover, and each
shared token's merge number here and there (:mod:`bpe_desktop.core.measure.rediscovery`).

*Compare* reads the reference and compares on the ``measure`` helper thread (:mod:`..polled_jobs`; reading
o200k's ranks was a stall the user saw): the page says "Computing…" and stays usable; choosing another run or
reference, or pressing Compare again, makes a result still being computed stale (dropped when it ends).  A reference
that cannot be read is the same dialog as before, once the job ends.

The run is encoded as every pane encodes it (:func:`~..work.encoder`: tiktoken's rank rule for an extended rank
table, not a replay of its merges).  An extension run (cl100k + merges learned here) counts its steps from the
original, as the timeline does: the plot starts at "step 0 = cl100k", a token the original makes is "made at"
its name, and its tokens are ranked by coverage of the corpus it was learned on (counted again on the helper
thread: the run keeps no word counts).  It leaves out the runs' other curves (:mod:`.compare`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ...core.counting.sources import count_source
from ...core.errors import BpeError
from ...core.formats import load_tokenizer
from ...core.measure.rediscovery import CURVE_COLUMNS, Rediscovery, rediscover
from .. import file_actions
from ..plots.common import PlotCard, set_title, style_plot
from ..plots.quality_feed import model_config
from ..polled_jobs import PolledJobs
from ..widgets import theme
from ..work import encoder, frozen
from .store import Run

#: the references offered first (name shown, spec)
REFERENCES = (("cl100k_base", "cl100k"), ("o200k_base", "o200k"), ("GPT-2 (r50k_base)", "gpt2"))


def corpus_words(run: Run) -> Mapping[str, int] | None:
    """The run's corpus as piece counts: its word counts, or for an extension run (which keeps none) its corpus
    counted again with its model's settings (reads the corpus: off the GUI thread); None when not known."""
    if run.word_counts is not None:
        return run.word_counts.counts  # (read only, never changed)
    if run.extension is None:
        return None
    return count_source(run.source, model_config(run.model)).counts


def compute(run: Run, spec: str) -> Rediscovery:
    """What the page shows for *run* (a :func:`~..work.frozen` copy) against the reference *spec* (the helper
    thread's job; Qt-free): :func:`~bpe_desktop.core.measure.rediscovery.rediscover` of the reference as
    ``load_tokenizer`` reads it, the run encoded as the panes encode it, its steps counted from its start."""
    return rediscover(encoder(run), load_tokenizer(spec), corpus_words(run), start=run.start)


class RediscoveryCard(PlotCard):
    """How many of the reference's merged tokens the run has made by step k (the CSV adds the share)."""

    name = "rediscovery"
    csv_header = CURVE_COLUMNS

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = self.addPlot(row=0, col=0)
        style_plot(self.plot, "Reference tokens the run has made", "merges", "reference tokens made")
        self.plot.getAxis("left").enableAutoSIPrefix(False)
        self.curve = self.plot.plot([], [], pen=pg.mkPen(theme.current().plot_ink, width=2))
        self.result: Rediscovery | None = None

    def show_result(self, r: Rediscovery | None, origin: str = "") -> None:
        """Draw *r*; *origin*: the original's name when the run extends one (its step 0)."""
        self.result = r
        self.plot.setLabel("bottom", f"new merges (0 = {origin})" if origin else "merges")
        if r is None or not r.found:
            self.curve.setData([], [])
            return
        steps = list(range(r.n_steps + 1))
        found = [r.found_at(k) for k in steps]
        self.curve.setData(steps, found)
        every = "" if origin else "; y = x: every merge one"
        set_title(self.plot, f"Reference tokens the run has made (of {r.n_reference:,}{every})",
                  f"Reference tokens made (of {r.n_reference:,})", "Reference tokens made")
        self.plot.enableAutoRange()
        if origin:  # (from 0, as a run trained here starts: an extension's curve starts high, often flat)
            self.plot.setYRange(0, max(found) or 1)

    def csv_rows(self) -> list[Sequence[object]]:
        return list(self.result.curve_rows()) if self.result is not None else []


def _table(headers: Sequence[str]) -> QtWidgets.QTableWidget:
    t = QtWidgets.QTableWidget(0, len(headers))
    t.setHorizontalHeaderLabels(list(headers))
    t.verticalHeader().setVisible(False)
    t.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
    t.horizontalHeader().setStretchLastSection(True)
    return t


def _fill(t: QtWidgets.QTableWidget, rows: Sequence[Sequence[object]], limit: int = 500) -> None:
    t.setRowCount(min(len(rows), limit))
    for i, row in enumerate(rows[:limit]):
        for j, v in enumerate(row):
            item = QtWidgets.QTableWidgetItem(f"{v:.2%}" if isinstance(v, float) else str(v))
            if not isinstance(v, str):
                item.setTextAlignment(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
            t.setItem(i, j, item)


def _made_at(rows: Sequence[Sequence[object]], origin: str) -> list[Sequence[object]]:
    """*rows* with "merge here" (the second column) 0 shown as the original's name, as the Vocabulary pane says
    "made at: cl100k" (no change for a run trained here)."""
    if not origin:
        return list(rows)
    return [(row[0], origin if row[1] == 0 else row[1], *row[2:]) for row in rows]


class RediscoveryPage(QtWidgets.QWidget):
    def __init__(self, runs: list[Run], parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.runs = runs
        self.run_pick = QtWidgets.QComboBox()
        for i, r in enumerate(runs):
            self.run_pick.addItem(f"{i + 1}. {r.name}")
        self.reference = QtWidgets.QComboBox()
        for label, spec in REFERENCES:
            self.reference.addItem(label, spec)
        other = QtWidgets.QPushButton("File…")
        other.clicked.connect(self._pick_reference)
        self.compare_button = QtWidgets.QPushButton("Compare")
        self.compare_button.clicked.connect(self.compare)
        self.export_button = QtWidgets.QPushButton("Export…")
        self.export_button.clicked.connect(self._export)
        top = QtWidgets.QHBoxLayout()
        for w in (QtWidgets.QLabel("Run"), self.run_pick, QtWidgets.QLabel("Reference"), self.reference, other,
                  self.compare_button, self.export_button):
            top.addWidget(w)
        top.addStretch(1)
        self.card = RediscoveryCard()
        self.summary = QtWidgets.QLabel("Which of the reference's tokens does the run relearn, and where does it "
                                        "depart?  Choose a run and a reference, then Compare.")
        self.summary.setWordWrap(True)
        self.lacking = _table(("token", "merge here", "occurrences", "bytes covered", "corpus share"))
        self.shared = _table(("token", "merge here", "merge there"))
        tables = QtWidgets.QSplitter()
        for title, t in (("The run's tokens the reference lacks, by corpus coverage", self.lacking),
                         ("Shared tokens", self.shared)):
            box = QtWidgets.QWidget()
            lay = QtWidgets.QVBoxLayout(box)
            lay.setContentsMargins(0, 0, 0, 0)
            lay.addWidget(QtWidgets.QLabel(title))
            lay.addWidget(t)
            tables.addWidget(box)
        lay = QtWidgets.QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.card, 1)
        lay.addWidget(self.summary)
        lay.addWidget(tables, 1)
        self.result: Rediscovery | None = None
        self._jobs: PolledJobs[tuple[int, int, str], Rediscovery] = PolledJobs(self, self._poll, "measure")
        self._generation = 0
        self._wanted: tuple[int, int, str] | None = None  # the job whose result is to be shown
        self.run_pick.currentIndexChanged.connect(self._stale)
        self.reference.currentIndexChanged.connect(self._stale)

    def _pick_reference(self) -> None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(self, "Reference tokenizer", "",
                                                        file_actions.OPEN_TOKENIZER_FILTER)
        if path:
            self.add_reference(path)

    def add_reference(self, spec: str) -> None:
        self.reference.addItem(spec, spec)
        self.reference.setCurrentIndex(self.reference.count() - 1)

    def compare(self) -> bool:
        """Start comparing the chosen run with the chosen reference on the helper thread (the result shown, or
        a dialog when the reference cannot be read, once it ends: :attr:`computing` until then); False
        when there is no run."""
        if not self.runs:
            return False
        run = self.runs[self.run_pick.currentIndex()]
        spec = str(self.reference.currentData())
        self._generation += 1
        key = (self._generation, self.run_pick.currentIndex(), spec)
        copy = frozen(run)  # (the job reads it while the window goes on)
        self._jobs.start(key, lambda: compute(copy, spec))
        self._wanted = key
        self.compare_button.setText("Computing…")
        self.summary.setText(f"Computing how much of {spec} the run {run.name} rediscovers…")
        return True

    @property
    def computing(self) -> bool:
        """Whether a comparison whose result would be shown is still being computed."""
        return self._wanted is not None

    @property
    def busy(self) -> bool:
        """Whether any comparison is still running on the helper thread (a stale one too)."""
        return bool(self._jobs.keys())

    def _stale(self) -> None:
        """Another run or reference was chosen: a result being computed is not shown."""
        if self._wanted is not None:
            self._wanted = None
            self.compare_button.setText("Compare")
            self.summary.setText("Choose a run and a reference, then Compare.")

    def _poll(self) -> None:
        for key, future in self._jobs.take_done():
            if key != self._wanted:
                continue  # stale: another run or reference was chosen meanwhile, or Compare pressed again
            self._wanted = None
            self.compare_button.setText("Compare")
            try:
                r = future.result()
            except BpeError as e:
                self.summary.setText("Which of the reference's tokens does the run relearn, and where does it "
                                     "depart?  Choose a run and a reference, then Compare.")
                file_actions.show_error(self, "Cannot compare", str(e))
                continue
            self._show(r, key[2], self.runs[key[1]])

    def _show(self, r: Rediscovery, spec: str, run: Run) -> None:
        self.result = r
        origin = run.extension.label if run.extension is not None else ""
        self.card.show_result(r, origin)
        n = r.n_steps
        cover = "" if r.corpus_bytes else " (the run's corpus is not counted: its tokens are in merge order)"
        first = f" ({r.found_at(0):,} at step 0 = {origin})" if origin else ""
        self.summary.setText(
            f"By step {n:,} the run has made {r.found_at(n):,} of {spec}'s {r.n_reference:,} merged tokens "
            f"({r.share_at(n):.2%}){first}; {len(r.lacking):,} of its tokens are not in {spec}{cover}.")
        _fill(self.lacking, _made_at(r.lacking_rows(), origin))
        _fill(self.shared, _made_at(r.shared_rows(), origin))

    def _export(self) -> None:
        if not self.card.has_data():
            file_actions.show_error(self, "Nothing to export", "press Compare first")
            return
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Export rediscovery", "rediscovery.png",
                                                             "PNG (*.png);;SVG (*.svg);;CSV (*.csv)")
        if path:
            self.export(path)

    def export(self, path: str) -> None:
        """Write the plot as PNG or SVG, or its numbers as CSV, by the file's extension."""
        try:
            if path.lower().endswith(".svg"):
                self.card.export_svg(path)
            elif path.lower().endswith(".csv"):
                self.card.export_csv(path)
            else:
                self.card.export_png(path)
        except BpeError as e:
            file_actions.show_error(self, "Cannot export", str(e))
