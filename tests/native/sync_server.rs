//! Devices (`lectern::sync` documents) through the real sync server
//! (`scripts/sync-server.mjs`: y-websocket's server with a room per user and
//! a token checked at the upgrade), started by the test on 127.0.0.1 with
//! its LevelDB persistence: two devices write, one goes offline and both
//! write more, it reconnects — every message on both, in the same order,
//! none twice; the server restarts mid-session and loses nothing; a device
//! joining late, after another restart with no other device online, gets
//! everything from the server's store; a wrong token and another user's room are
//! refused before a byte of the document is sent. Skipped with a message
//! without node or the server's npm packages.

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use lectern::domain::{Conversation, Message, Role};
use lectern::sync::SyncDocument;
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message as Frame, WebSocket};

const SECRET: &str = "a test secret";

/// The server process, killed when dropped.
struct Server {
    child: Child,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Why the server cannot run here, if it cannot.
fn missing() -> Option<String> {
    if !root().join("node_modules/@y/websocket-server").exists() {
        return Some("SKIPPED: no node_modules/@y/websocket-server (npm ci)".into());
    }
    match Command::new("node").arg("--version").output() {
        Ok(out) if out.status.success() => None,
        _ => Some("SKIPPED: no node".into()),
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts the server on `port` with its documents in `data`, and waits until it listens.
fn start(port: u16, data: &Path) -> Server {
    let mut child = Command::new("node")
        .arg(root().join("scripts/sync-server.mjs"))
        .args([
            "--port",
            &port.to_string(),
            "--host",
            "127.0.0.1",
            "--demo",
            "--data",
        ])
        .arg(data)
        .env("SYNC_SECRET", SECRET)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("node starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    loop {
        let line = lines.next().expect("the server says it listens").unwrap();
        if line.starts_with("listening on ") {
            break;
        }
    }
    std::thread::spawn(move || lines.for_each(drop));
    Server { child }
}

/// A token from the demo sign-in (`POST /demo/token`), by hand over HTTP/1.1.
fn token(port: u16, user: &str) -> String {
    let body = format!("{{\"user\":\"{user}\"}}");
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "POST /demo/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let json = &response[response.find("\r\n\r\n").unwrap() + 4..];
    let value: serde_json::Value = serde_json::from_str(json).unwrap();
    value["token"].as_str().unwrap().to_owned()
}

/// A device: its document, and its connection when online.
struct Device {
    doc: SyncDocument,
    socket: Option<WebSocket<MaybeTlsStream<TcpStream>>>,
    /// The state vector as of the last update sent.
    sent: Vec<u8>,
}

impl Device {
    fn new(name: &str, client: u64) -> Self {
        let doc = SyncDocument::new(name, client);
        let sent = doc.state_vector();
        Device {
            doc,
            socket: None,
            sent,
        }
    }

    fn connect(&mut self, port: u16, user: &str, token: &str) {
        let url = format!("ws://127.0.0.1:{port}/sync/{user}?token={token}");
        let (mut socket, _) = tungstenite::connect(url).expect("the server accepts the token");
        if let MaybeTlsStream::Plain(stream) = socket.get_mut() {
            stream.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
        }
        socket.send(Frame::Binary(self.doc.greeting())).unwrap();
        self.socket = Some(socket);
    }

    fn disconnect(&mut self) {
        if let Some(mut socket) = self.socket.take() {
            let _ = socket.close(None);
            let _ = socket.flush();
        }
    }

    /// Sends what was written here since the last send.
    fn push(&mut self) {
        let update = self.doc.diff_for(&self.sent).unwrap();
        self.sent = self.doc.state_vector();
        if let Some(socket) = &mut self.socket {
            socket
                .send(Frame::Binary(SyncDocument::update_frame(update)))
                .unwrap();
        }
    }

    /// Reads and answers frames until none comes for a while; false if the connection dropped.
    fn pump(&mut self) -> bool {
        let Some(socket) = &mut self.socket else {
            return true;
        };
        let mut quiet_since = Instant::now();
        while quiet_since.elapsed() < Duration::from_millis(300) {
            match socket.read() {
                Ok(Frame::Binary(frame)) => {
                    let received = self
                        .doc
                        .receive(&frame)
                        .expect("the server's frames keep the rules");
                    for reply in received.replies {
                        socket.send(Frame::Binary(reply)).unwrap();
                    }
                    quiet_since = Instant::now();
                }
                Ok(_) => {}
                Err(tungstenite::Error::Io(e))
                    if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                Err(_) => {
                    self.socket = None;
                    return false;
                }
            }
        }
        true
    }

    fn write(&mut self, id: &str, text: &str) {
        self.doc
            .append_message(&Message::new(id.into(), "c1", Role::User, text, 1.0));
        self.push();
    }

    fn ids(&self) -> Vec<String> {
        self.doc.messages("c1").into_iter().map(|m| m.id).collect()
    }
}

/// Pumps every device until all hold `count` messages (or ten seconds pass).
fn settle(devices: &mut [&mut Device], count: usize) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        for d in devices.iter_mut() {
            d.pump();
        }
        if devices
            .iter()
            .all(|d| d.socket.is_none() || d.ids().len() == count)
        {
            return;
        }
    }
}

#[test]
fn devices_sync_through_the_server_offline_writes_a_restart_and_a_late_device() {
    if let Some(why) = missing() {
        println!("{why}");
        return;
    }
    let data = std::env::temp_dir().join(format!("lectern-sync-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    let port = free_port();
    let mut server = start(port, &data);
    let user = "reader-1";
    let token = token(port, user);

    let (mut laptop, mut phone) = (Device::new("laptop", 11), Device::new("phone", 12));
    laptop.connect(port, user, &token);
    phone.connect(port, user, &token);
    laptop.doc.put_conversation(&Conversation {
        id: "c1".into(),
        title: "Thursday".into(),
        created_at: 1.0,
        book_id: None,
        working_state: None,
    });
    laptop.write("l0", "first, on the laptop");
    settle(&mut [&mut laptop, &mut phone], 1);
    phone.write("p0", "then on the phone");
    settle(&mut [&mut laptop, &mut phone], 2);
    assert_eq!(phone.ids(), ["l0", "p0"]);

    // The phone loses its network; both write on.
    phone.disconnect();
    for i in 1..=5 {
        laptop.write(&format!("l{i}"), "laptop, online");
        phone.write(&format!("p{i}"), "phone, offline");
    }
    laptop.pump();
    phone.connect(port, user, &token);
    settle(&mut [&mut laptop, &mut phone], 12);
    assert_eq!(laptop.ids().len(), 12, "every message: {:?}", laptop.ids());
    assert_eq!(laptop.ids(), phone.ids(), "in the same order on both");

    // The server restarts mid-session: the devices reconnect and write on.
    drop(server);
    laptop.pump();
    phone.pump();
    server = start(port, &data);
    laptop.connect(port, user, &token);
    phone.connect(port, user, &token);
    laptop.write("l6", "after the restart");
    settle(&mut [&mut laptop, &mut phone], 13);
    assert_eq!(laptop.ids(), phone.ids());
    assert_eq!(laptop.ids().len(), 13);

    // Both go away and the server restarts again; a third device joining late gets everything
    // from the server's store alone.
    laptop.disconnect();
    phone.disconnect();
    std::thread::sleep(Duration::from_millis(300));
    drop(server);
    server = start(port, &data);
    let mut tablet = Device::new("tablet", 13);
    tablet.connect(port, user, &token);
    settle(&mut [&mut tablet], 13);
    assert_eq!(
        tablet.ids(),
        laptop.ids(),
        "a late device gets everything, in order"
    );

    // A wrong token, or another user's room with this user's token: refused at the upgrade.
    for url in [
        format!("ws://127.0.0.1:{port}/sync/{user}?token=wrong"),
        format!("ws://127.0.0.1:{port}/sync/reader-2?token={token}"),
        format!("ws://127.0.0.1:{port}/sync/{user}"),
    ] {
        match tungstenite::connect(&url) {
            Err(tungstenite::Error::Http(response)) => assert_eq!(response.status(), 401, "{url}"),
            other => panic!("{url}: expected a 401, got {:?}", other.map(|_| ())),
        }
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&data);
}
