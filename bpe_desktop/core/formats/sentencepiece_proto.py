"""SentencePiece's ``.model`` file parsed with the ``protobuf`` library: the schema, declared in code.

A ``.model`` file is a serialized ``sentencepiece.ModelProto`` (``sentencepiece_model.proto``).  Rather than
decode its wire format by hand or ship a generated ``_pb2`` module (generated code is tied to the protobuf
release that made it), this module declares the part of the schema we read -- the pieces, the trainer spec's
model type and whitespace/byte options, the normalizer spec -- as a ``FileDescriptorProto`` with the
official field numbers and defaults, and lets protobuf build the message class and parse.  Fields left out
of the schema are kept by protobuf as unknown fields and ignored here.

:func:`parse` returns a plain :class:`SpmProto`; it does not judge whether the model is usable (the
reader, :mod:`.sentencepiece_model`, does) and does not encode.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from ..errors import FormatError

#: ``ModelProto.SentencePiece.Type``
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
#: ``TrainerSpec.ModelType``
MODEL_TYPES = {1: "unigram", 2: "bpe", 3: "word", 4: "char"}


@dataclass(frozen=True)
class SpmProto:
    """What a ``.model`` file says, as plain values."""

    pieces: list[tuple[str, float, int]]  # (piece, score, type) in id order
    model_type: str  # one of MODEL_TYPES' values, or "type N" for an unknown number
    byte_fallback: bool
    treat_whitespace_as_suffix: bool
    unk_surface: str
    normalizer_name: str
    precompiled_charsmap: bytes
    add_dummy_prefix: bool
    remove_extra_whitespaces: bool
    escape_whitespaces: bool
    normalization_rule_tsv: str
    denormalizer_rules: bool  # the model has decoding rules (a denormalizer charsmap)


@cache
def _model_class() -> Any:
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    F = descriptor_pb2.FieldDescriptorProto
    opt, rep = F.LABEL_OPTIONAL, F.LABEL_REPEATED
    fdp = descriptor_pb2.FileDescriptorProto(name="bpe_desktop_sentencepiece_model.proto",
                                             package="bpe_desktop_spm", syntax="proto2")

    def message(name: str, fields: list[tuple[str, int, int, int, str, str]]) -> descriptor_pb2.DescriptorProto:
        m = descriptor_pb2.DescriptorProto(name=name)
        for fname, number, label, ftype, type_name, default in fields:
            f = m.field.add(name=fname, number=number, label=label, type=ftype)
            if type_name:
                f.type_name = type_name
            if default:
                f.default_value = default
        return m

    piece = message("SentencePiece", [
        ("piece", 1, opt, F.TYPE_STRING, "", ""),
        ("score", 2, opt, F.TYPE_FLOAT, "", ""),
        ("type", 3, opt, F.TYPE_ENUM, ".bpe_desktop_spm.ModelProto.SentencePiece.Type", "NORMAL"),
    ])
    piece.enum_type.add(name="Type").value.extend(
        descriptor_pb2.EnumValueDescriptorProto(name=n, number=v) for n, v in
        [("NORMAL", NORMAL), ("UNKNOWN", UNKNOWN), ("CONTROL", CONTROL), ("USER_DEFINED", USER_DEFINED),
         ("UNUSED", UNUSED), ("BYTE", BYTE)])
    model = message("ModelProto", [
        ("pieces", 1, rep, F.TYPE_MESSAGE, ".bpe_desktop_spm.ModelProto.SentencePiece", ""),
        ("trainer_spec", 2, opt, F.TYPE_MESSAGE, ".bpe_desktop_spm.TrainerSpec", ""),
        ("normalizer_spec", 3, opt, F.TYPE_MESSAGE, ".bpe_desktop_spm.NormalizerSpec", ""),
        ("denormalizer_spec", 5, opt, F.TYPE_MESSAGE, ".bpe_desktop_spm.NormalizerSpec", ""),
    ])
    model.nested_type.append(piece)
    trainer = message("TrainerSpec", [
        ("model_type", 3, opt, F.TYPE_ENUM, ".bpe_desktop_spm.TrainerSpec.ModelType", "UNIGRAM"),
        ("treat_whitespace_as_suffix", 24, opt, F.TYPE_BOOL, "", "false"),
        ("byte_fallback", 35, opt, F.TYPE_BOOL, "", "false"),
        ("unk_surface", 44, opt, F.TYPE_STRING, "", " \u2047 "),
    ])
    trainer.enum_type.add(name="ModelType").value.extend(
        descriptor_pb2.EnumValueDescriptorProto(name=n.upper(), number=v) for v, n in MODEL_TYPES.items())
    normalizer = message("NormalizerSpec", [
        ("name", 1, opt, F.TYPE_STRING, "", ""),
        ("precompiled_charsmap", 2, opt, F.TYPE_BYTES, "", ""),
        ("add_dummy_prefix", 3, opt, F.TYPE_BOOL, "", "true"),
        ("remove_extra_whitespaces", 4, opt, F.TYPE_BOOL, "", "true"),
        ("escape_whitespaces", 5, opt, F.TYPE_BOOL, "", "true"),
        ("normalization_rule_tsv", 6, opt, F.TYPE_STRING, "", ""),
    ])
    fdp.message_type.extend([model, trainer, normalizer])
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("bpe_desktop_spm.ModelProto"))


def parse(data: bytes, source: str) -> SpmProto:
    """Parse the bytes of a ``.model`` file (raises :class:`FormatError` if protobuf cannot).

    >>> parse(b"", "x").model_type  # an empty message: every field at its default
    'unigram'
    """
    try:
        from google.protobuf.message import DecodeError
    except ImportError:  # pragma: no cover - protobuf is a runtime dependency
        raise FormatError(f"{source}: reading SentencePiece models needs the 'protobuf' package -- "
                          "pip install protobuf") from None
    msg = _model_class()()
    try:
        msg.ParseFromString(data)
    except (DecodeError, RuntimeError, ValueError) as e:
        raise FormatError(f"{source}: not a SentencePiece model ({e}) -- the file is damaged or is "
                          "another format") from None
    t, n = msg.trainer_spec, msg.normalizer_spec
    return SpmProto(
        pieces=[(p.piece, p.score, p.type) for p in msg.pieces],
        model_type=MODEL_TYPES.get(t.model_type, f"type {t.model_type}"),
        byte_fallback=t.byte_fallback, treat_whitespace_as_suffix=t.treat_whitespace_as_suffix,
        unk_surface=t.unk_surface, normalizer_name=n.name, precompiled_charsmap=n.precompiled_charsmap,
        add_dummy_prefix=n.add_dummy_prefix, remove_extra_whitespaces=n.remove_extra_whitespaces,
        escape_whitespaces=n.escape_whitespaces, normalization_rule_tsv=n.normalization_rule_tsv,
        denormalizer_rules=bool(msg.denormalizer_spec.precompiled_charsmap),
    )
