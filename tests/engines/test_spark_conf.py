"""`$TACIT_GEN_SPARK_CONF`: settings laid over the Spark session's own (the suite's small-data JVM
options), the JVMs kept in UTC whatever it says, and a clear error on text that is no JSON object
of strings. Pure configuration: the Spark suite (`-m spark`) runs the session with it."""

from __future__ import annotations

import pytest

from tacit_gen.engines.spark.session import CONF_ENV, SPARK_CONF, conf


def test_no_overlay_is_the_session_s_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CONF_ENV, raising=False)
    assert conf() == SPARK_CONF


def test_an_overlay_replaces_a_setting_and_keeps_utc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CONF_ENV, '{"spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1", '
                                 '"spark.driver.memory": "1g"}')
    got = conf()
    assert got["spark.driver.extraJavaOptions"] == "-Duser.timezone=UTC -XX:TieredStopAtLevel=1"
    assert got["spark.executor.extraJavaOptions"] == "-Duser.timezone=UTC"
    assert got["spark.driver.memory"] == "1g"
    assert got["spark.sql.session.timeZone"] == "UTC"


def test_the_suite_s_own_overlay_parses(monkeypatch: pytest.MonkeyPatch) -> None:
    import noxfile

    monkeypatch.setenv(CONF_ENV, noxfile.SPARK_SMALL_DATA)
    assert conf()["spark.driver.extraJavaOptions"].split() == [
        "-Duser.timezone=UTC", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"]


@pytest.mark.parametrize("text", ["spark.driver.memory=1g", '["a"]', '{"spark.driver.memory": 1}'])
def test_text_that_is_no_object_of_strings_is_refused(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setenv(CONF_ENV, text)
    with pytest.raises(ValueError, match=CONF_ENV):
        conf()
