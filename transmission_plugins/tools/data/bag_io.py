# Copyright 2026 The transmission_plugins Authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""
rosbag2 files through the pure-Python ``rosbags`` library: detection, reading, topics, writing.

Bags, topic names and errors as doc/bags.md describes them.  ``rosbags`` skips the messages of
a corrupted MCAP chunk without a word, so :meth:`BagReader.messages` compares the messages it
read with the counts the bag declares.
"""

import os
from pathlib import Path
import secrets
import shutil
import sys
from typing import Any
from typing import Iterator
from typing import Sequence

from transmission_plugins.core.exceptions import TransmissionFileError
from transmission_plugins.core.exceptions import TransmissionInputError
from transmission_plugins.urdf.user_files import check_user_file

#: The message type the tools convert.
JOINT_STATE = 'sensor_msgs/msg/JointState'

#: Storage identifier per file suffix (rosbag2's names).
STORAGE_OF_SUFFIX = {'.mcap': 'mcap', '.db3': 'sqlite3'}
SUFFIX_OF_STORAGE = {v: k for k, v in STORAGE_OF_SUFFIX.items()}


class BagError(TransmissionFileError):
    """A bag cannot be read or written (missing, corrupted, truncated, exists already)."""


class BagTopicError(TransmissionInputError):
    """The requested topic is not in the bag, has the wrong type, or the output name clashes."""


def is_bag(path: str) -> bool:
    """Return True when ``path`` names a bag: a ``.mcap``/``.db3`` file or a bag directory."""
    p = Path(path)
    if p.suffix in STORAGE_OF_SUFFIX:
        return True
    return p.is_dir() and ((p / 'metadata.yaml').is_file()
                           or any(c.suffix in STORAGE_OF_SUFFIX for c in p.iterdir()))


def _typestore() -> Any:
    from rosbags.typesys import get_typestore
    from rosbags.typesys import Stores
    return get_typestore(Stores.ROS2_KILTED)


_TYPESTORE: list[Any] = []


def typestore() -> Any:
    """Return the ``rosbags`` type store of ROS 2 Kilted (built once)."""
    if not _TYPESTORE:
        _TYPESTORE.append(_typestore())
    return _TYPESTORE[0]


def _reason(e: BaseException) -> str:
    text = str(e) or type(e).__name__
    return f'{type(e).__name__}: {text}' if type(e).__name__ not in text else text


class BagReader:
    """
    An open rosbag2 bag (use as a context manager); errors name the file.

    :param path: a bag directory, ``.mcap`` or ``.db3`` file
    :raises BagError: missing, not a directory or a regular file (a FIFO, a device), not a bag,
        corrupted or truncated
    """

    def __init__(self, path: str) -> None:
        from rosbags.rosbag2 import Reader
        self.path = str(path)
        if not os.path.exists(self.path):
            raise BagError(self.path, 'cannot read the bag: No such file or directory', 2,
                           'No such file or directory')
        if not os.path.isdir(self.path):   # a bag directory, else a regular storage file
            try:
                check_user_file(self.path, 'the bag', sys.maxsize)
            except TransmissionFileError as e:   # a FIFO would block rosbags for good
                raise BagError(self.path, e.message, None, e.strerror) from e
        try:
            self.reader = Reader(self.path)
            self.reader.open()
        except Exception as e:  # noqa: B902 - whatever rosbags raises on a broken file
            raise BagError(self.path, f'cannot read the bag (not a rosbag2 bag, corrupted or '
                                      f'truncated): {_reason(e)}') from e
        self.storage = self._storage()

    def _storage(self) -> str:
        p = Path(self.path)
        if p.suffix in STORAGE_OF_SUFFIX:
            return STORAGE_OF_SUFFIX[p.suffix]
        files = sorted(c.suffix for c in p.iterdir() if c.suffix in STORAGE_OF_SUFFIX)
        return STORAGE_OF_SUFFIX[files[0]] if files else 'sqlite3'

    def __enter__(self) -> 'BagReader':
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Close the bag (errors while closing a broken bag are ignored)."""
        try:
            self.reader.close()
        except Exception:  # noqa: B902, S110 - closing what could not be read
            pass

    @property
    def connections(self) -> list[Any]:
        """Return the ``rosbags`` ``Connection`` records of the bag."""
        return list(self.reader.connections)

    @property
    def message_count(self) -> int:
        """Return the number of messages in the bag."""
        return int(self.reader.message_count)

    def topics(self) -> dict[str, str]:
        """Return ``{topic: message type}`` for every topic of the bag."""
        return {c.topic: c.msgtype for c in self.connections}

    def describe_topics(self) -> str:
        """Return the topics and types as one line for error messages."""
        topics = self.topics()
        if not topics:
            return 'the bag has no topics'
        return 'topics in the bag: ' + ', '.join(f'{t} ({m})' for t, m in sorted(topics.items()))

    def messages(self, connections: Sequence[Any] = ()) -> Iterator[tuple[Any, int, bytes]]:
        """
        Yield ``(connection, receive time in ns, serialized message)`` in time order.

        :param connections: those of some topics (default: all)
        :raises BagError: the storage is corrupted or truncated: it cannot be read, or holds
            fewer messages than it declares (raised once the last message was yielded)
        """
        expected = sum(c.msgcount for c in (connections or self.connections))
        read = 0
        try:
            for message in self.reader.messages(connections=connections):
                read += 1
                yield message
        except Exception as e:  # noqa: B902 - whatever rosbags raises on a broken file
            raise BagError(self.path, f'cannot read the bag (corrupted or truncated): '
                                      f'{_reason(e)}') from e
        if read < expected:
            raise BagError(self.path, f'cannot read the bag in full (corrupted): {read} of its '
                                      f'{expected} messages could be read')

    def time_span(self) -> tuple[int, int]:
        """Return the receive times of the first and the last message (ns)."""
        return int(self.reader.start_time), int(self.reader.end_time)

    def messages_between(self, connections: Sequence[Any], start: int,
                         stop: int) -> Iterator[tuple[Any, int, bytes]]:
        """
        Yield the messages received in ``[start, stop)`` (ns), in time order.

        The storage's index finds them without reading the rest (MCAP chunks, SQLite3's
        time index).  Unlike :meth:`messages`, the count of a part of a bag cannot be checked
        against the declared counts.

        :raises BagError: the storage is corrupted or truncated
        """
        try:
            yield from self.reader.messages(connections=connections, start=start, stop=stop)
        except Exception as e:  # noqa: B902 - whatever rosbags raises on a broken file
            raise BagError(self.path, f'cannot read the bag (corrupted or truncated): '
                                      f'{_reason(e)}') from e

    def match(self, topic: str, msgtype: str = JOINT_STATE) -> list[Any]:
        """
        Return the connections of ``topic`` (with or without namespace, see the module doc).

        :raises BagTopicError: no such topic (the message lists the bag's topics), or a
            matching topic of another type
        """
        found = [c for c in self.connections if topic_matches(c.topic, topic)]
        if not found:
            raise BagTopicError(f'{self.path}: no topic {topic!r} (with or without namespace); '
                                f'{self.describe_topics()}')
        wrong = [c for c in found if c.msgtype != msgtype]
        if wrong:
            raise BagTopicError(f'{self.path}: topic {wrong[0].topic!r} has type '
                                f'{wrong[0].msgtype}, expected {msgtype}')
        return found


def topic_matches(name: str, wanted: str) -> bool:
    """Return True when bag topic ``name`` is ``wanted``, or ``wanted`` in some namespace."""
    if wanted.startswith('/'):
        return name == wanted
    return name == '/' + wanted or name.endswith('/' + wanted)


def output_topic(input_topic: str, output: str, wanted: str) -> str:
    """
    Return the output topic for ``input_topic``: ``output`` in its namespace when relative.

    :param wanted: the ``--topic`` the input matched (its namespace is what precedes it)
    """
    if output.startswith('/'):
        return output
    if wanted.startswith('/'):
        namespace = input_topic.rpartition('/')[0]
    else:
        namespace = input_topic[:len(input_topic) - len(wanted) - 1]
    return f'{namespace}/{output}'


def connection_definition(connection: Any) -> tuple[str, str]:
    """
    Return the message definition and type hash to write for ``connection``.

    Taken from the input bag; for a bag that stores none (older sqlite3 bags), from the
    ROS 2 Kilted type store.

    :raises BagError: neither the bag nor the type store knows the type
    """
    from rosbags.interfaces import MessageDefinitionFormat
    msgdef = connection.msgdef
    if msgdef.format != MessageDefinitionFormat.NONE and connection.digest:
        return msgdef.data, connection.digest
    store = typestore()
    if connection.msgtype not in store.types:
        raise BagError(str(connection.owner.path if hasattr(connection.owner, 'path') else ''),
                       f'topic {connection.topic!r}: the bag stores no definition of '
                       f'{connection.msgtype} and it is not a standard ROS 2 type')
    data = (msgdef.data if msgdef.format != MessageDefinitionFormat.NONE
            else store.generate_msgdef(connection.msgtype, ros_version=2)[0])
    return data, store.hash_rihs01(connection.msgtype)


class BagWriter:
    """
    Write a bag to a temporary place beside ``path``, moved there on :meth:`commit` only.

    ``path`` ending in ``.mcap`` or ``.db3`` gives one storage file; any other path a bag
    directory (``metadata.yaml`` and ``<name>.<suffix>``).  An existing ``path`` is an error:
    bags are not overwritten.  Every failure to write (a full disk, a file size limit) is a
    :class:`BagError` naming ``path``; call :meth:`abort` then (nothing is left behind).

    :param storage: ``'mcap'`` or ``'sqlite3'``
    :raises BagError: ``path`` exists, or its folder cannot be written
    """

    def __init__(self, path: str, storage: str) -> None:
        from rosbags.rosbag2 import StoragePlugin
        from rosbags.rosbag2 import Writer
        self.path = str(path)
        self.storage = storage
        target = Path(self.path)
        if os.path.lexists(self.path):
            raise BagError(self.path, 'exists already; bags are not overwritten (remove it or '
                                      'choose another name)')
        self.single_file = target.suffix in STORAGE_OF_SUFFIX
        folder = target.parent if str(target.parent) else Path('.')
        # the name is known before the folder exists: a signal at any point from here on (the
        # CLI raises on SIGTERM) leaves nothing behind, even right after the mkdir
        self._tmp = str(folder / f'.convert-{secrets.token_hex(8)}')
        self._bag = Path(self._tmp) / (target.stem if self.single_file else target.name)
        try:
            os.mkdir(self._tmp, 0o700)
            plugin = StoragePlugin.MCAP if storage == 'mcap' else StoragePlugin.SQLITE3
            self.writer = Writer(self._bag, version=9, storage_plugin=plugin)
            self.writer.open()
        except BaseException as e:
            shutil.rmtree(self._tmp, ignore_errors=True)
            if isinstance(e, Exception):
                raise self._error(e) from e
            raise

    def _error(self, e: BaseException) -> BagError:
        """Return the error for a failure to write, naming ``path`` (not the temporary bag)."""
        reason = (e.strerror if isinstance(e, OSError) and e.strerror else _reason(e))
        reason = reason.replace(str(self._bag), self.path).replace(self._tmp, '.')
        return BagError(self.path, f'cannot write the bag: {reason}')

    def add(self, topic: str, like: Any) -> Any:
        """Add a topic with the type, definition and QoS of input connection ``like``."""
        msgdef, digest = connection_definition(like)
        try:
            return self.writer.add_connection(
                topic, like.msgtype, msgdef=msgdef, rihs01=digest,
                serialization_format=like.ext.serialization_format,
                offered_qos_profiles=like.ext.offered_qos_profiles)
        except Exception as e:  # noqa: B902 - whatever the storage raises
            raise self._error(e) from e

    def write(self, connection: Any, timestamp: int, data: Any) -> None:
        """Write one serialized message with its receive time (ns)."""
        try:
            self.writer.write(connection, timestamp, data)
        except Exception as e:  # noqa: B902 - whatever the storage raises (a full disk...)
            raise self._error(e) from e

    def commit(self) -> None:
        """Finish the bag and move it to ``path``."""
        try:
            self.writer.close()
            if self.single_file:
                inner = self._bag / (self._bag.name + SUFFIX_OF_STORAGE[self.storage])
                os.replace(inner, self.path)
            else:
                os.replace(self._bag, self.path)
        except Exception as e:  # noqa: B902 - whatever the storage raises (a full disk...)
            raise self._error(e) from e
        finally:
            shutil.rmtree(self._tmp, ignore_errors=True)

    def abort(self) -> None:
        """Drop everything written so far."""
        try:
            self.writer.abort()
        except Exception:  # noqa: B902, S110 - the storage is removed below anyway
            pass
        finally:
            shutil.rmtree(self._tmp, ignore_errors=True)


def storage_of_output(path: str, storage: str | None, default: str) -> str:
    """
    Return the storage of an output bag: ``--storage``, else the file suffix, else ``default``.

    :raises BagTopicError: ``--storage`` contradicts the suffix
    """
    suffix = Path(path).suffix
    implied = STORAGE_OF_SUFFIX.get(suffix)
    if storage and implied and storage != implied:
        raise BagTopicError(f'{path}: a {suffix} file is {implied} storage, not --storage '
                            f'{storage}')
    return storage or implied or default
