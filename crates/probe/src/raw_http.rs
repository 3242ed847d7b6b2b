//! HTTP/1.1 written and read by hand over a TCP connection, for the two
//! experiments a client library cannot do: hanging up right after sending,
//! and holding back each copy's last byte so that every copy's request is
//! complete at the server at the same moment. Only plain `http://`.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A POST, ready to write: where to, and its bytes.
#[derive(Debug, Clone)]
pub struct RawPost {
    host: String,
    port: u16,
    bytes: Vec<u8>,
}

/// A response as read off the connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawResponse {
    /// The status code.
    pub status: u16,
    /// The headers, names in lower case, in order.
    pub headers: Vec<(String, String)>,
    /// The body, de-chunked.
    pub body: String,
}

impl RawResponse {
    /// The first header named `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, value)| value.as_str())
    }
}

impl RawPost {
    /// A POST of `body` to `url` with `Idempotency-Key: key` and `headers`,
    /// asking the server to close the connection after answering.
    pub fn new(
        url: &reqwest::Url,
        key: &str,
        headers: &[(String, String)],
        body: &serde_json::Value,
    ) -> Result<Self, String> {
        if url.scheme() != "http" {
            return Err("only plain http:// endpoints can be probed this way".to_owned());
        }
        let host = url.host_str().ok_or("the URL has no host")?.to_owned();
        let port = url.port_or_known_default().unwrap_or(80);
        let mut path = url.path().to_owned();
        if let Some(query) = url.query() {
            path = format!("{path}?{query}");
        }
        let body = body.to_string();
        let mut head = format!(
            "POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nIdempotency-Key: {key}\r\n",
            body.len()
        );
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("Connection: close\r\n\r\n");
        let mut bytes = head.into_bytes();
        bytes.extend_from_slice(body.as_bytes());
        Ok(Self { host, port, bytes })
    }

    /// Opens a connection to the server.
    pub async fn connect(&self) -> Result<TcpStream, String> {
        TcpStream::connect((self.host.as_str(), self.port))
            .await
            .map_err(|error| error.to_string())
    }

    /// Writes all of the request but its last byte.
    pub async fn write_all_but_the_last_byte(&self, stream: &mut TcpStream) -> Result<(), String> {
        let (most, _) = self.bytes.split_at(self.bytes.len() - 1);
        write(stream, most).await
    }

    /// Writes the last byte: the request is complete at the server.
    pub async fn write_the_last_byte(&self, stream: &mut TcpStream) -> Result<(), String> {
        let (_, last) = self.bytes.split_at(self.bytes.len() - 1);
        write(stream, last).await
    }

    /// Writes the whole request.
    pub async fn write(&self, stream: &mut TcpStream) -> Result<(), String> {
        write(stream, &self.bytes).await
    }
}

async fn write(stream: &mut TcpStream, bytes: &[u8]) -> Result<(), String> {
    stream
        .write_all(bytes)
        .await
        .map_err(|error| error.to_string())?;
    stream.flush().await.map_err(|error| error.to_string())
}

/// Reads the response off `stream` until the server closes it (it was
/// asked to), within `timeout`.
pub async fn read_response(
    stream: &mut TcpStream,
    timeout: Duration,
) -> Result<RawResponse, String> {
    let mut bytes = Vec::new();
    tokio::time::timeout(timeout, stream.read_to_end(&mut bytes))
        .await
        .map_err(|_| "timed out".to_owned())?
        .map_err(|error| error.to_string())?;
    parse_response(&bytes)
}

/// A response from its bytes: the status line, the headers, and the body
/// (by `Content-Length`, chunked, or up to the end).
pub fn parse_response(bytes: &[u8]) -> Result<RawResponse, String> {
    let split = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("connection closed without a response")?;
    let head = String::from_utf8_lossy(&bytes[..split]);
    let rest = &bytes[split + 4..];
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|code| code.parse::<u16>().ok())
        .ok_or("not an HTTP response")?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.eq_ignore_ascii_case("chunked"));
    let body = if chunked {
        dechunk(rest)?
    } else {
        let length = headers
            .iter()
            .find(|(n, _)| n == "content-length")
            .and_then(|(_, v)| v.parse::<usize>().ok())
            .unwrap_or(rest.len());
        rest[..length.min(rest.len())].to_vec()
    };
    Ok(RawResponse {
        status,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

/// A chunked body, joined.
fn dechunk(mut rest: &[u8]) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    loop {
        let line_end = rest
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or("a chunk without its size line")?;
        let size_text = String::from_utf8_lossy(&rest[..line_end]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| "a chunk size that is not hexadecimal")?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Ok(body);
        }
        let chunk = rest.get(..size).ok_or("a chunk cut short")?;
        body.extend_from_slice(chunk);
        rest = rest.get(size + 2..).unwrap_or_default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_response_is_read_by_its_length_or_its_chunks() {
        let sized =
            parse_response(b"HTTP/1.1 201 Created\r\nContent-Length: 7\r\nIdempotent-Replayed: true\r\n\r\n{\"id\":1}extra")
                .unwrap();
        assert_eq!(sized.status, 201);
        assert_eq!(sized.body, "{\"id\":1");
        assert_eq!(sized.header("idempotent-replayed"), Some("true"));
        let chunked = parse_response(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\n\r\n",
        )
        .unwrap();
        assert_eq!(chunked.body, "{\"a\":1}");
        assert!(parse_response(b"").is_err());
    }

    #[test]
    fn the_post_is_whole_http_with_the_key_and_closes_the_connection() {
        let url = reqwest::Url::parse("http://127.0.0.1:8080/orders?x=1").unwrap();
        let headers = [("Lab-Secret".to_owned(), "s".to_owned())];
        let post = RawPost::new(&url, "k-1", &headers, &serde_json::json!({"a": 1})).unwrap();
        let text = String::from_utf8(post.bytes.clone()).unwrap();
        assert!(text.starts_with("POST /orders?x=1 HTTP/1.1\r\n"), "{text}");
        assert!(text.contains("Idempotency-Key: k-1\r\n") && text.contains("Lab-Secret: s\r\n"));
        assert!(
            text.ends_with("Connection: close\r\n\r\n{\"a\":1}"),
            "{text}"
        );
        let https = reqwest::Url::parse("https://example.com/").unwrap();
        assert!(RawPost::new(&https, "k", &[], &serde_json::json!({})).is_err());
    }
}
