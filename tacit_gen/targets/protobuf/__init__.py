"""The protobuf target: `render` (contract -> proto3 + field-number lock), `read`, `engine`."""

from tacit_gen.targets.protobuf.render import ProtobufTarget

TARGET = ProtobufTarget()

__all__ = ["TARGET"]
