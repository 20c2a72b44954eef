//! `sslmode` as libpq means it, on rustls: `disable` no TLS; `allow` and
//! `prefer` TLS when the server offers it, unverified; `require` TLS or no
//! connection, verified against the root certificates when a root file
//! exists (libpq does the same), else unverified; `verify-ca` the chain;
//! `verify-full` the chain and the host name. A required TLS the server
//! lacks is an error, never a fallback. Root certificates: `sslrootcert`
//! (a PEM file, or `system` for the Mozilla roots errkb carries), else
//! `~/.postgresql/root.crt`.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, Error as TlsError, RootCertStore, SignatureScheme};

use super::conninfo::{Conninfo, SslMode};

/// The TLS setting for tokio-postgres, and the connector to use.
pub fn connector(
    info: &Conninfo,
) -> Result<(
    tokio_postgres::config::SslMode,
    tokio_postgres_rustls::MakeRustlsConnect,
)> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let roots = root_certificates(info)?;
    let verifier: Arc<dyn ServerCertVerifier> = match (info.sslmode, roots) {
        (SslMode::VerifyCa | SslMode::VerifyFull, None) => bail!(
            "sslmode={} needs the server's root certificate: put it in ~/.postgresql/root.crt, \
             name it with sslrootcert=FILE, or use sslrootcert=system for the public authorities",
            info.sslmode.name()
        ),
        (SslMode::Require | SslMode::VerifyCa, Some(roots)) => Arc::new(ChainOnly(webpki(roots, &provider)?)),
        (SslMode::VerifyFull, Some(roots)) => webpki(roots, &provider)?,
        _ => Arc::new(Unverified(provider.clone())),
    };
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .context("TLS setup")?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    let mode = match info.sslmode {
        SslMode::Disable => tokio_postgres::config::SslMode::Disable,
        SslMode::Allow | SslMode::Prefer => tokio_postgres::config::SslMode::Prefer,
        SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull => tokio_postgres::config::SslMode::Require,
    };
    Ok((mode, tokio_postgres_rustls::MakeRustlsConnect::new(config)))
}

fn webpki(roots: RootCertStore, provider: &Arc<CryptoProvider>) -> Result<Arc<dyn ServerCertVerifier>> {
    Ok(
        rustls::client::WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
            .build()
            .context("cannot use the root certificates")?,
    )
}

/// The root certificates to verify against, when there are any.
fn root_certificates(info: &Conninfo) -> Result<Option<RootCertStore>> {
    let mut store = RootCertStore::empty();
    if info.sslrootcert.as_deref() == Some("system") {
        store.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        return Ok(Some(store));
    }
    let explicit = info.sslrootcert.as_ref().map(PathBuf::from);
    let file = match &explicit {
        Some(file) => file.clone(),
        None => match errkb::config::home() {
            Some(home) => home.join(".postgresql").join("root.crt"),
            None => return Ok(None),
        },
    };
    if !file.exists() {
        if explicit.is_some() {
            bail!("sslrootcert={}: no such file", file.display());
        }
        return Ok(None);
    }
    for cert in CertificateDer::pem_file_iter(&file).with_context(|| format!("cannot read {}", file.display()))? {
        let cert = cert.with_context(|| format!("{} holds a certificate errkb cannot read", file.display()))?;
        store
            .add(cert)
            .with_context(|| format!("{} holds a certificate that is not a CA certificate", file.display()))?;
    }
    if store.is_empty() {
        bail!("{} holds no certificate", file.display());
    }
    Ok(Some(store))
}

/// `verify-ca` (and `require` with a root file): the chain, not the name.
#[derive(Debug)]
struct ChainOnly(Arc<dyn ServerCertVerifier>);

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, TlsError> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp, now)
        {
            Err(TlsError::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, TlsError> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, TlsError> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

/// `prefer` and `require` without a root file: encrypted, not verified
/// (what libpq does; verify-full is what protects against an impostor).
/// The handshake's signatures are still checked.
#[derive(Debug)]
struct Unverified(Arc<CryptoProvider>);

impl ServerCertVerifier for Unverified {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, TlsError> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, TlsError> {
        verify_tls12_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, TlsError> {
        verify_tls13_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}
