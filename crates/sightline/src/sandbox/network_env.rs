//! The user's own network and certificate settings, which every child that
//! may reach the network (installers, and servers whose entry asks for it)
//! gets from the user configuration's `network_env`, over whatever the
//! client that started the daemon had; a child without the network gets
//! none of them. Gemini CLI strips every variable
//! whose name holds `CERT` from the MCP servers it starts, and Codex clears
//! theirs: a daemon first started by one of them could not install behind a
//! TLS-inspecting proxy, where a daemon started from the user's shell could.
//! Only the names below are taken, and no value holding a user and
//! password (`http://user:pass@proxy`), so that the key cannot carry a
//! credential or change what a child runs. npm's fetch retries and timeout
//! are among them, as whole numbers of at least one, so that an
//! unreachable registry can be given up on at once but an install never
//! waits without a bound.

/// The variables `network_env` may set: proxies, certificate authorities,
/// package registries and how npm tries a fetch again, as npm, pip, uv,
/// cargo, go and Node read them.
pub const NETWORK_VARS: &[&str] = &[
    "HTTPS_PROXY",
    "HTTP_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "https_proxy",
    "http_proxy",
    "all_proxy",
    "no_proxy",
    "NODE_EXTRA_CA_CERTS",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "PIP_CERT",
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "PIP_TRUSTED_HOST",
    "UV_INDEX_URL",
    "UV_NATIVE_TLS",
    "npm_config_registry",
    "npm_config_cafile",
    "npm_config_proxy",
    "npm_config_https_proxy",
    "npm_config_strict_ssl",
    // How npm tries a fetch again: by default twice, 10 s and more apart,
    // so an unreachable registry holds an install a minute before it fails.
    "npm_config_fetch_retries",
    "npm_config_fetch_retry_mintimeout",
    "npm_config_fetch_retry_maxtimeout",
    "npm_config_fetch_timeout",
    "CARGO_HTTP_CAINFO",
    "CARGO_HTTP_PROXY",
    "GOPROXY",
    "GONOSUMDB",
    "GOPRIVATE",
];

/// npm's fetch settings, which take a count or milliseconds.
const NUMBERS: &[&str] = &[
    "npm_config_fetch_retries",
    "npm_config_fetch_retry_mintimeout",
    "npm_config_fetch_retry_maxtimeout",
    "npm_config_fetch_timeout",
];

/// Whether `network_env` may set `name`.
pub fn allowed(name: &str) -> bool {
    NETWORK_VARS.contains(&name)
}

/// Whether `value` suits `name`: npm's fetch settings take a whole number,
/// and a timeout of 0 (npm's "never time out") is refused, as it would let
/// an install wait forever; a retry count of 0 is fine. Any other name
/// takes any value.
pub fn value_fits(name: &str, value: &str) -> bool {
    if !NUMBERS.contains(&name) {
        return true;
    }
    match value.trim().parse::<u64>() {
        Ok(0) => name == "npm_config_fetch_retries",
        Ok(_) => true,
        Err(_) => false,
    }
}

/// Whether `value` holds a credential: a URL's `user:password@` (or
/// `token@`) part, with a scheme or without one (`me:secret@proxy:3128`, as
/// curl and pip take a proxy), or a secret in its query (`?token=`).
pub fn holds_credential(value: &str) -> bool {
    value.split(',').any(|url| {
        let url = url.trim();
        let rest = url.split_once("://").map_or(url, |(_, r)| r);
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        authority.contains('@') || query_holds_secret(url)
    })
}

/// Query keys that carry a secret.
const SECRET_KEYS: &[&str] = &[
    "token",
    "key",
    "secret",
    "password",
    "passwd",
    "pwd",
    "sig",
    "signature",
    "auth",
    "credential",
    "credentials",
    "jwt",
];

/// Whether a URL's query names a secret (`?access_token=`, `&api_key=`).
fn query_holds_secret(url: &str) -> bool {
    let Some((_, query)) = url.split_once('?') else {
        return false;
    };
    query.split('&').any(|pair| {
        let key = pair.split('=').next().unwrap_or("").to_ascii_lowercase();
        SECRET_KEYS.iter().any(|s| {
            key == *s || key.ends_with(&format!("_{s}")) || key.ends_with(&format!("-{s}"))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npm_s_fetch_settings_are_bounded_whole_numbers() {
        assert!(value_fits("npm_config_fetch_retries", "0"));
        assert!(value_fits("npm_config_fetch_timeout", "30000"));
        assert!(!value_fits("npm_config_fetch_timeout", "0"));
        assert!(!value_fits("npm_config_fetch_retry_mintimeout", "0"));
        assert!(!value_fits("npm_config_fetch_retries", "-1"));
        assert!(!value_fits("npm_config_fetch_retries", "many"));
        // Other names are judged elsewhere (a credential in a URL).
        assert!(value_fits("HTTPS_PROXY", "http://proxy:3128"));
    }
}
