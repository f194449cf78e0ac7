"""The settings pane: every training option as a form, presets, and as-you-type checks.

Mode, pre-tokenizer (named patterns or a custom regex checked on every keystroke with
:func:`~bpe_desktop.core.text.pretokenize.validate_pattern`, the error shown under the field), stop conditions
(merges and/or target vocabulary size, minimum frequency), tie-break rule, end-of-word marker and special
tokens.  :meth:`SettingsPanel.config` builds the :class:`TrainConfig` (raising the core's ``BpeError`` when
the form is invalid).  When the form no longer matches the settings of the trained model a banner offers to
retrain (signal ``retrainRequested``).  It does not train and does not touch the corpus.
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from ...core.choices import Mode
from ...core.config import TrainConfig
from ...core.errors import BpeError, PatternError
from ...core.text.pretokenize import NAMED_PATTERNS, validate_pattern
from ..presets import PRESETS, SEED_CONFIG, preset_matching
from ..session import Session
from ..training.protocol import TrainingState
from ..widgets.elided_label import ElidedLabel
from .settings_form import SettingsRows, spin_box

CUSTOM = "custom regex…"


class SettingsPanel(QtWidgets.QWidget):
    changed = QtCore.Signal()
    retrainRequested = QtCore.Signal()

    def __init__(self, session: Session, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.preset = QtWidgets.QComboBox(self)
        self.preset.addItem("(custom settings)")
        self.preset.addItems(list(PRESETS))
        self.rows = rows = SettingsRows(self, merges_tip="Stop after this many merges", forbid_lines=2)
        # the shared rows' widgets, by the names callers and tests use
        self.mode, self.pretok, self.merges, self.min_freq, self.tie, self.forbid = (
            rows.mode, rows.pretok, rows.merges, rows.min_freq, rows.tie, rows.forbid)
        self.pretok.addItem(CUSTOM)
        self.regex = QtWidgets.QLineEdit(self)
        self.regex.setPlaceholderText(r"custom pattern, e.g. \w+|[^\w\s]+")
        self.regex_error = QtWidgets.QLabel(self)
        self.regex_error.setObjectName("inlineError")
        self.regex_error.setWordWrap(True)
        self.regex_error.hide()
        self.vocab = spin_box(self, 0, 10_000_000, "no limit", "Stop at this vocabulary size")
        self.marker = QtWidgets.QLineEdit(self)
        self.marker.setToolTip("End-of-word marker (chars mode; empty for none)")
        # the marker must show whole ("</w>" was cut to "/w>" beside a long check-box label)
        self.marker.setMinimumWidth(self.marker.fontMetrics().horizontalAdvance("</w>__") + 16)
        self.glue = QtWidgets.QCheckBox("glued", self)
        self.glue.setToolTip("Glue the marker to the last character of a word, as subword-nmt 0.2 and HF "
                             "tokenizers' end_of_word_suffix do (off: the marker is a symbol of its own, "
                             "as in the seeds)")
        self.specials = QtWidgets.QLineEdit(self)
        self.specials.setPlaceholderText("e.g. <|endoftext|> <pad>  (space-separated)")
        self.banner = ElidedLabel("Settings differ from the trained tokenizer.", self)
        self.banner.setObjectName("banner")
        # elided when narrow (whole in the tooltip): showing it must not widen the dock (a QLabel did, ~90 px)
        self.banner.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        self.retrain_btn = QtWidgets.QPushButton("Retrain", self)
        self.retrain_btn.clicked.connect(self.retrainRequested)
        self._banner_row = QtWidgets.QWidget(self)
        row = QtWidgets.QHBoxLayout(self._banner_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.banner, 1)
        row.addWidget(self.retrain_btn)
        self._banner_row.hide()

        form = QtWidgets.QFormLayout(self)
        form.setFieldGrowthPolicy(QtWidgets.QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setContentsMargins(8, 6, 8, 6)
        form.addRow("Preset", self.preset)
        marker_row = QtWidgets.QHBoxLayout()
        marker_row.addWidget(self.marker, 1)
        marker_row.addWidget(self.glue)
        rows.add_to(form, after={
            "Pre-tokenizer": [("", self.regex), ("", self.regex_error)],
            "Merges": [("Vocab size", self.vocab)],
            "Tie-break": [("End of word", marker_row), ("Special tokens", self.specials)],
        })
        form.addRow(self._banner_row)

        self._loading = False
        self.set_config(SEED_CONFIG)
        for sig in (*rows.changed_signals(), self.vocab.valueChanged, self.glue.toggled, self.marker.textChanged,
                    self.specials.textChanged, self.regex.textChanged):
            sig.connect(self._edited)
        self.preset.activated.connect(self._preset_chosen)
        session.modelReset.connect(self._update_banner)
        session.trainingStateChanged.connect(self._update_banner)
        session.workLoaded.connect(lambda: self.set_config(session.work.draft_config or session.config))
        session.workLoaded.connect(self._update_banner)  # (skipped while the load's first signals pass)

    # -- public -------------------------------------------------------------------------------------
    def pattern_spec(self) -> str:
        name = self.pretok.currentText()
        return self.regex.text() if name == CUSTOM else name

    def error(self) -> str | None:
        """What is wrong with the form right now (the inline message), or ``None``."""
        if self.pretok.currentText() != CUSTOM:
            return None
        if not self.regex.text():
            return "type a regular expression, or choose a named pattern"
        return validate_pattern(self.regex.text())

    def config(self) -> TrainConfig:
        """The settings as a config; raises a :class:`BpeError` (with the fix) when the form is invalid."""
        problem = self.error()
        if problem is not None:
            raise PatternError(f"the custom pre-tokenizer pattern is not valid: {problem}")
        return TrainConfig(
            mode=self.rows.chosen_mode(),
            pretokenizer=self.pattern_spec(), end_of_word=self.marker.text(),
            glue_marker=self.glue.isChecked(), tie_break=self.rows.chosen_tie_break(),
            merges=self.merges.value() or None, vocab_size=self.vocab.value() or None,
            min_frequency=self.min_freq.value(), specials=tuple(self.specials.text().split()),
            forbid=self.forbid.pairs(), forbid_regex=self.forbid.pattern(),
        )

    def set_config(self, cfg: TrainConfig) -> None:
        self._loading = True
        try:
            self.rows.set_from(cfg)
            if cfg.pretokenizer in NAMED_PATTERNS:
                self.pretok.setCurrentText(cfg.pretokenizer)
            else:
                self.pretok.setCurrentText(CUSTOM)
                self.regex.setText(cfg.pretokenizer)
            self.vocab.setValue(cfg.vocab_size or 0)
            self.marker.setText(cfg.end_of_word)
            self.glue.setChecked(cfg.glue_marker)
            self.specials.setText(" ".join(cfg.specials))
        finally:
            self._loading = False
        self._edited()

    # -- internals ----------------------------------------------------------------------------------
    def _preset_chosen(self, index: int) -> None:
        name = self.preset.itemText(index)
        if name in PRESETS:
            self.set_config(PRESETS[name])

    def _edited(self, *_: object) -> None:
        custom = self.pretok.currentText() == CUSTOM
        self.regex.setVisible(custom)
        problem = self.error() if custom else None
        self.regex_error.setText(problem or "")
        self.regex_error.setVisible(bool(problem))
        self.regex.setProperty("invalid", bool(problem))
        self.regex.style().unpolish(self.regex)
        self.regex.style().polish(self.regex)
        chars = self.rows.follow_mode() == Mode.CHARS
        self.marker.setEnabled(chars)
        self.glue.setEnabled(chars)
        if self._loading:
            return
        try:
            name = preset_matching(self.config())
        except BpeError:
            name = None
        self.preset.setCurrentText(name or "(custom settings)")
        self._update_banner()
        self.changed.emit()

    @property
    def banner_shown(self) -> bool:
        """The "settings differ from the trained tokenizer" banner is up."""
        return not self._banner_row.isHidden()

    def _update_banner(self, *_: object) -> None:
        s = self.session
        if s.loading:  # the form does not show the run's settings yet: it would show and hide the banner
            return
        trained = bool(s.records) and s.state in (TrainingState.FINISHED, TrainingState.IDLE)
        try:
            differs = self.config() != s.config
        except BpeError:
            differs = True
        self._banner_row.setVisible(trained and differs)
