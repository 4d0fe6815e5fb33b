"""TLS: the self-signed certificate (cryptography or openssl) and HTTPS serving."""

import builtins
import ssl

import pytest

from kubectl_informer.sim import tls
from kubectl_informer.sim.server import SimServer
from tests.sim._http import RawClient


def test_https_server_verifies_with_its_ca():
    with SimServer(tls=True) as sim:
        assert sim.url.startswith("https://127.0.0.1:") and sim.ca_pem.startswith(b"-----BEGIN CERTIFICATE")
        assert RawClient(sim.url, ca_pem=sim.ca_pem, token=sim.token).get("/version")[0] == 200
        with pytest.raises(ssl.SSLError):
            RawClient(sim.url, ca_pem=tls_other_ca(), token=sim.token).get("/version")


def tls_other_ca() -> bytes:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        cert, _ = tls.make_self_signed(d)
        return open(cert, "rb").read()


def _no_cryptography(monkeypatch):
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name.startswith("cryptography"):
            raise ImportError("no cryptography here")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)


def test_openssl_fallback_makes_a_usable_certificate(tmp_path, monkeypatch):
    if not tls.shutil.which("openssl"):
        pytest.fail("the openssl command is needed for this test")
    _no_cryptography(monkeypatch)
    cert, key = tls.make_self_signed(str(tmp_path))
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)  # raises if the pair is unusable


def test_no_way_to_make_a_certificate_is_one_line(tmp_path, monkeypatch):
    _no_cryptography(monkeypatch)
    monkeypatch.setattr(tls.shutil, "which", lambda name: None)
    with pytest.raises(tls.TLSUnavailable, match="TLS needs the 'cryptography' package or the openssl command"):
        tls.make_self_signed(str(tmp_path))
    with pytest.raises(tls.TLSUnavailable):
        SimServer(tls=True).start()
