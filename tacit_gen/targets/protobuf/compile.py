"""protoc (from grpcio-tools) on a .proto text, and message classes from its descriptor set.

Classes come from protobuf's `message_factory` over a private `DescriptorPool` built from the
descriptor set protoc wrote: the same classes `--python_out` generates, without importing a module
per version, so two versions of one message (same names) live side by side for `compat --replay`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any


class ProtocError(ValueError):
    """protoc refused the file; the message is protoc's own."""


def include_dir() -> str:
    """The folder of the well-known types (google/protobuf/*.proto) shipped in grpcio-tools."""
    import grpc_tools

    return os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")


def validate_descriptors() -> bytes:
    """A FileDescriptorSet holding ``buf/validate/validate.proto``, from the descriptors the
    `protovalidate` package ships: protoc reads the import from it (``--descriptor_set_in``), so
    nothing is fetched from a registry. Its own imports are well-known types protoc has."""
    import protovalidate
    from google.protobuf import descriptor_pb2

    fds = descriptor_pb2.FileDescriptorSet()
    fds.file.add().ParseFromString(protovalidate.ViolationPb.desc().file.proto.to_binary())
    return bytes(fds.SerializeToString())


def compile_proto(text: str, filename: str) -> Any:
    """The FileDescriptorSet (imports included, with source comments) of one .proto text.

    Raises:
        ProtocError: protoc's error output.
        ModuleNotFoundError: the text imports the protovalidate rules and the `protovalidate`
            package is not installed.
    """
    from google.protobuf import descriptor_pb2

    with tempfile.TemporaryDirectory(prefix="tacit-protoc-") as tmp:
        src = Path(tmp) / filename
        src.parent.mkdir(parents=True, exist_ok=True)
        src.write_text(text, encoding="utf-8")
        out = Path(tmp) / "set.pb"
        extra = []
        if '"buf/validate/' in text:
            validate = Path(tmp) / "buf-validate.pb"
            validate.write_bytes(validate_descriptors())
            extra.append(f"--descriptor_set_in={validate}")
        proc = subprocess.run(
            [sys.executable, "-m", "grpc_tools.protoc", f"-I{include_dir()}", f"-I{tmp}", *extra,
             "--include_imports", "--include_source_info", f"--descriptor_set_out={out}", filename],
            capture_output=True, text=True, cwd=tmp, check=False)
        if proc.returncode != 0:
            raise ProtocError((proc.stderr or proc.stdout).strip().replace(tmp + os.sep, ""))
        fds = descriptor_pb2.FileDescriptorSet()
        fds.ParseFromString(out.read_bytes())
        return fds


def message_class(fds: Any, full_name: str) -> Any:
    """The message class of `full_name` (``package.Message``) from a descriptor set."""
    from google.protobuf import descriptor_pool, message_factory

    pool = descriptor_pool.DescriptorPool()
    for fp in fds.file:
        pool.Add(fp)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(full_name))
