"""Hugging Face ``tokenizer.json`` pipelines, read component by component as ``tokenizers`` runs them.

* :mod:`.aligned` -- text that remembers, for each of its characters, the span of the original text it
  came from (what HF calls a ``NormalizedString``);
* :mod:`.normalizers`, :mod:`.pretokenizers`, :mod:`.decoders` -- one reader per component family, each
  refusing an unknown component with a :class:`~bpe_desktop.core.errors.FormatError` naming it;
* :mod:`.added_tokens` -- added tokens cut out of the text before the model sees it;
* :mod:`.pipeline` -- :class:`~.pipeline.HFTokenizer`, the whole pipeline over our merge-list model.

Reading the ``model`` section itself (vocabulary and merges) stays in :mod:`..hf_json`.  Nothing here
writes files.
"""
