"""The protobuf target: `render` (contract -> proto3 + field-number lock), `read`, `engine`."""

from tacit_gen.targets.protobuf.target import TARGET

__all__ = ["TARGET"]
