//! iozone's cluster mode (`-+m CLIENTFILE` with `-t N`): the throughput tests run with one
//! child on each of the first N clients the file lists, each started over the remote
//! shell iozone uses (`$RSH`, `rsh` when unset) as `$RSH host -n 'path -+s -t 1 -r 4 -s 4
//! -+c MASTER -+i PORT ...'`, working in its own directory; the master starts every test
//! on all of them at once, stops the others when the first finishes (stonewalling, unless
//! `-x`), and prints iozone's distributed lines (no "Parent sees" line).
//!
//! The client file is iozone's: one client a line, `name workdir path_to_iozone [file]`,
//! `#` in the first column a comment. The path is fathom on the client, linked as `iozone`
//! (or named `fathom`: then `suite iozone` goes before the flags). Master and clients talk
//! fathom's own line protocol (JSON, one message a line) over one TCP connection a client:
//! the clients are fathom, not iozone. A client proves it was started by this master with
//! a token given on its command line.

use super::throughput::{child, Child, TESTS};
use super::Opts;
use anyhow::{anyhow, bail, Context, Result};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child as Proc, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// iozone's master port (its firewall rules name it); taken when free, another port when
/// not, unless `-+i` named one.
const IOZONE_PORT: u16 = 20000;

/// How long the master waits for a client to join.
const JOIN_WAIT: Duration = Duration::from_secs(60);

/// One line of the client file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientLine {
    pub host: String,
    pub workdir: String,
    pub path: String,
    /// The fourth field: the client's test file (relative to its workdir).
    pub file: Option<String>,
}

/// iozone's client file: `name workdir path [file]` a line, `#` in column one a comment;
/// blank lines are skipped.
pub fn read_clients(file: &Path) -> Result<Vec<ClientLine>> {
    let text = std::fs::read_to_string(file)
        .with_context(|| format!("-+m: cannot read the client file {}", file.display()))?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() != 3 && f.len() != 4 {
            bail!(
                "-+m {}:{}: '{}': a client line is 'name workdir path_to_iozone [file]' \
                 ({} fields here)",
                file.display(),
                n + 1,
                line.trim(),
                f.len()
            );
        }
        out.push(ClientLine {
            host: f[0].into(),
            workdir: f[1].into(),
            path: f[2].into(),
            file: f.get(3).map(|s| s.to_string()),
        });
    }
    if out.is_empty() {
        bail!("-+m {}: no client lines in the file", file.display());
    }
    Ok(out)
}

/// What the master's command line says about the cluster.
#[derive(Debug, Clone, Default)]
pub struct ClusterFlags {
    /// `-+m FILE`.
    pub clients: Option<PathBuf>,
    /// `-+h NAME`: the name the clients reach the master by (its host name otherwise).
    pub master_host: Option<String>,
    /// `-+i PORT`: the master's port.
    pub port: Option<u16>,
}

/// The master's command line for its clients: the flags that are the master's own (the
/// client file, its name, its port) left out.
fn client_args(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if matches!(a.as_str(), "-+m" | "-+h" | "-+i") {
            it.next();
            continue;
        }
        out.push(a.clone());
    }
    out
}

/// The command a client is started with on its host.
fn client_command(path: &str, master: &str, port: u16, token: &str, index: usize) -> String {
    let fathom_named = Path::new(path)
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("fathom"));
    format!(
        "{path}{} -+s -t 1 -r 4 -s 4 -+c {master} -+i {port} --cluster-client={token}:{index}",
        if fathom_named { " suite iozone" } else { "" }
    )
}

fn send(w: &mut TcpStream, v: &Value) -> std::io::Result<()> {
    let mut line = v.to_string();
    line.push('\n');
    w.write_all(line.as_bytes())
}

fn child_json(c: &Child) -> Value {
    json!([c.rate, c.actual, c.wall, c.cpu])
}

fn child_of(v: &Value) -> Option<Child> {
    let a = v.as_array()?;
    let f = |i: usize| a.get(i).and_then(Value::as_f64);
    Some(Child {
        rate: f(0)?,
        actual: f(1)?,
        wall: f(2)?,
        cpu: f(3)?,
    })
}

/// A random token (hex) from the kernel.
fn token() -> Result<String> {
    let mut b = [0u8; 16];
    std::io::Read::read_exact(&mut std::fs::File::open("/dev/urandom")?, &mut b)?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

/// A client as the master holds it.
struct Joined {
    line: ClientLine,
    out: TcpStream,
}

/// The master of a cluster run: its clients started and joined.
pub struct Master {
    clients: Vec<Joined>,
    procs: Vec<Proc>,
    rx: mpsc::Receiver<(usize, Option<Value>)>,
    no_stonewall: bool,
}

impl Master {
    /// Start `n` clients of the file over `$RSH` and wait until each has joined and taken
    /// the test's settings.
    pub fn start(o: &Opts, flags: &ClusterFlags, args: &[String], n: usize) -> Result<Master> {
        let file = flags.clients.as_ref().expect("cluster mode");
        let lines = read_clients(file)?;
        if n > lines.len() {
            bail!(
                "-+m {}: {n} children asked for (-t/-u) but the client file lists {} client{}; \
                 one child runs on each client line",
                file.display(),
                lines.len(),
                if lines.len() == 1 { "" } else { "s" }
            );
        }
        let listener = match flags.port {
            Some(p) => TcpListener::bind(("0.0.0.0", p))
                .with_context(|| format!("-+i {p}: cannot listen on port {p}"))?,
            None => TcpListener::bind(("0.0.0.0", IOZONE_PORT))
                .or_else(|_| TcpListener::bind(("0.0.0.0", 0)))
                .context("-+m: cannot listen for the clients")?,
        };
        let port = listener.local_addr()?.port();
        let master = flags
            .master_host
            .clone()
            .unwrap_or_else(|| fathom::facts::host().hostname);
        let rsh = std::env::var("RSH").unwrap_or_else(|_| "rsh".into());
        let token = token()?;
        let mut procs = Vec::new();
        let mut cmds = Vec::new();
        for (i, c) in lines.iter().take(n).enumerate() {
            let cmd = client_command(&c.path, &master, port, &token, i);
            let shell = format!("{rsh} {} -n '{cmd}'", c.host);
            let p = Command::new("sh")
                .arg("-c")
                .arg(&shell)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .spawn()
                .with_context(|| format!("-+m: starting '{shell}'"))?;
            procs.push(p);
            cmds.push(shell);
        }
        let mut m = Master {
            clients: Vec::new(),
            procs,
            rx: mpsc::channel().1,
            no_stonewall: o.no_stonewall,
        };
        let (tx, rx) = mpsc::channel();
        m.rx = rx;
        let mut slots: Vec<Option<Joined>> = (0..n).map(|_| None).collect();
        listener.set_nonblocking(true)?;
        let t0 = Instant::now();
        let config_args = client_args(args);
        while slots.iter().any(Option::is_none) {
            super::super::check_stop()?;
            for (i, p) in m.procs.iter_mut().enumerate() {
                if slots[i].is_none() {
                    if let Some(st) = p.try_wait()? {
                        bail!(
                            "-+m: client {i} ({}) ended ({st}) before it joined: '{}' \
                             (is RSH set to a remote shell that reaches it, and is the path \
                             fathom linked as iozone?)",
                            lines[i].host,
                            cmds[i]
                        );
                    }
                }
            }
            if t0.elapsed() > JOIN_WAIT {
                let missing: Vec<String> = slots
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| s.is_none())
                    .map(|(i, _)| format!("{i} ({})", lines[i].host))
                    .collect();
                bail!(
                    "-+m: client{} {} did not join the master at {master}:{port} within {} s \
                     (can they reach that name? -+h names the master as the clients see it)",
                    if missing.len() == 1 { "" } else { "s" },
                    missing.join(", "),
                    JOIN_WAIT.as_secs()
                );
            }
            let (stream, _) = match listener.accept() {
                Ok(s) => s,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    std::thread::sleep(Duration::from_millis(20));
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            stream.set_nonblocking(false)?;
            stream.set_read_timeout(Some(Duration::from_secs(10)))?;
            let mut rd = BufReader::new(stream.try_clone()?);
            let mut hello = String::new();
            if rd.read_line(&mut hello).is_err() {
                continue;
            }
            let Ok(v) = serde_json::from_str::<Value>(&hello) else {
                continue;
            };
            let index = v["index"].as_u64().unwrap_or(u64::MAX) as usize;
            if v["join"].as_str() != Some(token.as_str()) || index >= n || slots[index].is_some() {
                // Not one of ours (or a second join): not let in.
                continue;
            }
            stream.set_read_timeout(None)?;
            let c = &lines[index];
            let mut out = stream;
            send(
                &mut out,
                &json!({"args": config_args, "dir": c.workdir, "file": c.file}),
            )?;
            let tx = tx.clone();
            std::thread::spawn(move || {
                for l in rd.lines() {
                    let Ok(l) = l else { break };
                    let v = serde_json::from_str::<Value>(&l).unwrap_or(Value::Null);
                    if tx.send((index, Some(v))).is_err() {
                        return;
                    }
                }
                let _ = tx.send((index, None));
            });
            slots[index] = Some(Joined {
                line: c.clone(),
                out,
            });
        }
        m.clients = slots.into_iter().map(|s| s.expect("joined")).collect();
        // Each client says it is ready (its settings taken, in its directory).
        let mut ready = vec![false; n];
        while ready.iter().any(|r| !r) {
            let (i, v) = m.recv()?;
            match v {
                Some(v) if v["ready"].as_bool() == Some(true) => ready[i] = true,
                v => return Err(m.client_error(i, v)),
            }
        }
        Ok(m)
    }

    /// The next message of any client (None: its connection closed), or an error when the
    /// suite is stopped.
    fn recv(&self) -> Result<(usize, Option<Value>)> {
        loop {
            super::super::check_stop()?;
            match self.rx.recv_timeout(Duration::from_millis(100)) {
                Ok(m) => return Ok(m),
                Err(mpsc::RecvTimeoutError::Timeout) => continue,
                Err(mpsc::RecvTimeoutError::Disconnected) => bail!("-+m: every client is gone"),
            }
        }
    }

    fn client_error(&self, i: usize, v: Option<Value>) -> anyhow::Error {
        let host = &self.clients[i].line.host;
        match v {
            None => anyhow!("-+m: client {i} ({host}) went away"),
            Some(v) => match v["error"].as_str() {
                Some(e) => anyhow!("-+m: client {i} ({host}): {e}"),
                None => anyhow!("-+m: client {i} ({host}) said something unexpected: {v}"),
            },
        }
    }

    /// Test `test` (an index of TESTS) on the first `n` clients, all started together;
    /// the first to finish stops the others unless -x. None: stopped by a signal.
    pub fn run_test(&mut self, test: usize, n: usize) -> Result<Option<Vec<Child>>> {
        for c in &mut self.clients[..n] {
            send(&mut c.out, &json!({"run": test, "children": n}))?;
        }
        let mut done: Vec<Option<Child>> = vec![None; n];
        let mut stopped_others = false;
        while done.iter().any(Option::is_none) {
            let (i, v) = match self.recv() {
                Ok(m) => m,
                Err(_) if super::super::stopped() => return Ok(None),
                Err(e) => return Err(e),
            };
            match v.as_ref().and_then(|v| child_of(&v["done"])) {
                Some(c) if i < n => {
                    done[i] = Some(c);
                    if !self.no_stonewall && !stopped_others {
                        stopped_others = true;
                        for (k, c) in self.clients[..n].iter_mut().enumerate() {
                            if k != i {
                                let _ = send(&mut c.out, &json!({"stop": true}));
                            }
                        }
                    }
                }
                _ => return Err(self.client_error(i, v)),
            }
        }
        Ok(Some(done.into_iter().map(|c| c.expect("done")).collect()))
    }
}

impl Drop for Master {
    /// Every client told to quit (it removes its file), its remote shell waited for.
    fn drop(&mut self) {
        for c in &mut self.clients {
            let _ = send(&mut c.out, &json!({"quit": true}));
            let _ = c.out.shutdown(std::net::Shutdown::Write);
        }
        let t0 = Instant::now();
        for p in &mut self.procs {
            loop {
                match p.try_wait() {
                    Ok(Some(_)) | Err(_) => break,
                    Ok(None) if t0.elapsed() > Duration::from_secs(10) => {
                        let _ = p.kill();
                        let _ = p.wait();
                        break;
                    }
                    Ok(None) => std::thread::sleep(Duration::from_millis(20)),
                }
            }
        }
    }
}

/// True when the command line is a cluster client's (`-+c MASTER`).
pub fn is_client(args: &[String]) -> bool {
    args.iter().any(|a| a == "-+c")
}

/// A client: join the master named by `-+c`/`-+i`, take its settings, run each test it
/// starts, report, and remove the test file when told to quit.
pub fn client(args: &[String]) -> Result<()> {
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let master = value("-+c").ok_or_else(|| anyhow!("-+c: give the master's name"))?;
    let port: u16 = match value("-+i") {
        Some(p) => p.parse().map_err(|_| anyhow!("-+i: '{p}' is not a port"))?,
        None => IOZONE_PORT,
    };
    let ticket = args
        .iter()
        .find_map(|a| a.strip_prefix("--cluster-client="))
        .ok_or_else(|| {
            anyhow!(
                "-+c: this client was not started by a fathom master (fathom's clients are \
                 started by `fathom suite iozone -+m FILE`, not by iozone)"
            )
        })?;
    let (token, index) = ticket
        .split_once(':')
        .and_then(|(t, i)| Some((t.to_string(), i.parse::<usize>().ok()?)))
        .ok_or_else(|| anyhow!("--cluster-client: '{ticket}' is not TOKEN:INDEX"))?;
    let stream = {
        let t0 = Instant::now();
        loop {
            match TcpStream::connect((master.as_str(), port)) {
                Ok(s) => break s,
                Err(e) if t0.elapsed() > Duration::from_secs(10) => {
                    return Err(e).with_context(|| format!("-+c: cannot reach {master}:{port}"))
                }
                Err(_) => std::thread::sleep(Duration::from_millis(100)),
            }
        }
    };
    stream.set_nodelay(true)?;
    let mut out = stream.try_clone()?;
    send(&mut out, &json!({"join": token, "index": index}))?;
    let mut rd = BufReader::new(stream);
    let mut line = String::new();
    rd.read_line(&mut line)?;
    let cfg: Value = serde_json::from_str(&line).context("-+c: the master's settings")?;
    let set_up = || -> Result<(Opts, PathBuf)> {
        let args: Vec<String> = cfg["args"]
            .as_array()
            .ok_or_else(|| anyhow!("no settings"))?
            .iter()
            .filter_map(|a| a.as_str().map(String::from))
            .collect();
        let o = super::parse(&args)?;
        let dir = cfg["dir"].as_str().unwrap_or(".");
        std::env::set_current_dir(dir).with_context(|| format!("its working directory {dir}"))?;
        // The client line's fourth field, else -F's name for this child, else iozone's.
        let file = match (cfg["file"].as_str(), o.child_files.get(index)) {
            (Some(f), _) => PathBuf::from(f),
            (None, Some(f)) => f.clone(),
            (None, None) => PathBuf::from(format!("iozone.DUMMY.{index}")),
        };
        Ok((o, file))
    };
    let (o, file) = match set_up() {
        Ok(x) => x,
        Err(e) => {
            let _ = send(&mut out, &json!({"error": format!("{e:#}")}));
            return Err(e);
        }
    };
    send(&mut out, &json!({"ready": true}))?;
    // The master's messages: a stop sets the flag the running test watches; a run clears
    // it (it comes after every stop of the test before) and is passed on.
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel::<Option<(usize, usize)>>();
    {
        let stop = stop.clone();
        std::thread::spawn(move || {
            for l in rd.lines() {
                let Ok(l) = l else { break };
                let v: Value = serde_json::from_str(&l).unwrap_or(Value::Null);
                if v["stop"].as_bool() == Some(true) {
                    stop.store(true, Ordering::SeqCst);
                } else if let Some(k) = v["run"].as_u64() {
                    stop.store(false, Ordering::SeqCst);
                    let children = v["children"].as_u64().unwrap_or(1) as usize;
                    if tx.send(Some((k as usize, children))).is_err() {
                        return;
                    }
                } else {
                    break;
                }
            }
            // Told to quit, or the master is gone: a test under way stops.
            super::super::stop::request();
            let _ = tx.send(None);
        });
    }
    let start = std::sync::Barrier::new(1);
    let res = (|| -> Result<()> {
        while let Ok(Some((k, children))) = rx.recv() {
            let Some((_, _, t)) = TESTS.get(k) else {
                bail!("the master asked for test {k}, which this fathom does not know");
            };
            let who = (index, children);
            let c = child(&o, t, who, &file, o.sizes[0], o.records[0], &start, &stop);
            match c {
                Ok(c) => send(&mut out, &json!({"done": child_json(&c)}))?,
                Err(e) if super::super::stopped() => return Err(e),
                Err(e) => {
                    send(&mut out, &json!({"error": format!("{e:#}")}))?;
                    return Err(e);
                }
            }
        }
        Ok(())
    })();
    if !o.keep {
        let _ = std::fs::remove_file(&file);
    }
    match res {
        Err(_) if super::super::stopped() => Ok(()),
        r => r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_file_lines() {
        let f = std::env::temp_dir().join(format!("fathom-clients-{}", std::process::id()));
        std::fs::write(
            &f,
            "# name workdir path\nhostA /tmp/a /usr/bin/iozone\n\n  \nhostB /tmp/b /opt/fathom f.dat\n",
        )
        .unwrap();
        let c = read_clients(&f).unwrap();
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].host, "hostA");
        assert_eq!(c[0].file, None);
        assert_eq!(c[1].path, "/opt/fathom");
        assert_eq!(c[1].file.as_deref(), Some("f.dat"));
        std::fs::write(&f, "hostA /tmp/a\n").unwrap();
        let e = read_clients(&f).unwrap_err().to_string();
        assert!(e.contains(":1:") && e.contains("2 fields"), "{e}");
        std::fs::write(&f, "# only a comment\n").unwrap();
        assert!(read_clients(&f).is_err());
        std::fs::remove_file(&f).unwrap();
    }

    #[test]
    fn client_command_and_args() {
        let c = client_command("/usr/local/bin/iozone", "m1", 20000, "ab", 3);
        assert_eq!(
            c,
            "/usr/local/bin/iozone -+s -t 1 -r 4 -s 4 -+c m1 -+i 20000 --cluster-client=ab:3"
        );
        let c = client_command("/usr/bin/fathom", "m1", 1, "ab", 0);
        assert!(c.starts_with("/usr/bin/fathom suite iozone -+s"), "{c}");
        let a: Vec<String> = ["-+m", "f", "-t", "2", "-+h", "x", "-+i", "9", "-s", "1m"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(client_args(&a), ["-t", "2", "-s", "1m"]);
    }

    #[test]
    fn child_round_trip() {
        let c = Child {
            rate: 1.5,
            actual: 2.0,
            wall: 0.25,
            cpu: 0.125,
        };
        let d = child_of(&child_json(&c)).unwrap();
        assert_eq!(
            (d.rate, d.actual, d.wall, d.cpu),
            (c.rate, c.actual, c.wall, c.cpu)
        );
        assert!(child_of(&json!([1.0])).is_none());
    }
}
