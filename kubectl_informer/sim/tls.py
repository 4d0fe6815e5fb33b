"""A throw-away self-signed certificate for the simulated server's TLS.

Made at start with the ``cryptography`` package when it is installed, else
with the ``openssl`` command; with neither, TLS is unavailable and
``TLSUnavailable`` says so in one line.
"""

from __future__ import annotations

import datetime
import os
import shutil
import subprocess
import tempfile

from kubectl_informer.core.private_files import write_private


class TLSUnavailable(RuntimeError):
    pass


def make_self_signed(directory: str, host: str = "127.0.0.1") -> tuple[str, str]:
    """Write ``cert.pem`` and ``key.pem`` under ``directory`` for ``host``
    (IP and DNS "localhost" SANs). Returns their paths."""
    cert_path = os.path.join(directory, "cert.pem")
    key_path = os.path.join(directory, "key.pem")
    try:
        _with_cryptography(cert_path, key_path, host)
    except ImportError:
        _with_openssl(cert_path, key_path, host)
    return cert_path, key_path


def _with_cryptography(cert_path: str, key_path: str, host: str) -> None:
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kubectl-informer-sim")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=7))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(host)), x509.DNSName("localhost")]),
            critical=False,
        )
        # Self-signed and used as its own CA by the kubeconfig.
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    write_private(
        key_path,
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()),
    )
    write_private(cert_path, cert.public_bytes(serialization.Encoding.PEM))


def _with_openssl(cert_path: str, key_path: str, host: str) -> None:
    exe = shutil.which("openssl")
    if not exe:
        raise TLSUnavailable("TLS needs the 'cryptography' package or the openssl command; neither is installed")
    with tempfile.NamedTemporaryFile("w", suffix=".cnf", delete=False) as cnf:
        cnf.write(
            "[req]\ndistinguished_name=dn\nx509_extensions=ext\nprompt=no\n[dn]\nCN=kubectl-informer-sim\n"
            f"[ext]\nsubjectAltName=IP:{host},DNS:localhost\nbasicConstraints=critical,CA:TRUE\n"
        )
    try:
        r = subprocess.run(
            [
                exe,
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-days",
                "7",
                "-keyout",
                key_path,
                "-out",
                cert_path,
                "-config",
                cnf.name,
            ],
            capture_output=True,
            text=True,
            timeout=30,
        )
    finally:
        os.unlink(cnf.name)
    if r.returncode != 0:
        msg = (r.stderr.strip().splitlines() or ["unknown error"])[-1]
        raise TLSUnavailable(f"openssl could not make a certificate: {msg}")
