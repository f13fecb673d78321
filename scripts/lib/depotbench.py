"""What Depot's benchmarks share: the build users deploy, starting `depot serve` (DepotServe),
free ports, waiting for a server,
/proc readers, and a relay that counts the bytes on the wire. Each benchmark does `sys.path.insert(0, <scripts>/lib)` and imports this."""

import os, re, socket, subprocess, threading, time, urllib.error, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# DEPOT_BINARY: another build to run (scripts/test gives the one it built).
DEPOT = os.path.abspath(os.environ.get("DEPOT_BINARY") or os.path.join(ROOT, ".build", "release", "depot"))
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def build_release(folder=ROOT, product="depot"):
    """Builds `product` as users deploy it: release, with the Swift runtime linked statically
    (deploy/README). Every benchmark measures this build, never a debug one."""
    arguments = ["swift", "build", "-c", "release", "--static-swift-stdlib"]
    if product:
        arguments += ["--product", product]
    subprocess.run(arguments, cwd=folder, check=True, capture_output=True, text=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port, timeout=60, process=None, failure=None):
    """Waits until something listens on 127.0.0.1:port; stops early when `process` (a Popen)
    has exited, saying `failure()` (what its log says) when given."""
    deadline = time.time() + timeout
    while time.time() < deadline and (process is None or process.poll() is None):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(failure() if failure else f"nothing listens on {port}")


def kill_group(process):
    """SIGKILL to `process`'s group (a server started with start_new_session): a host that dies."""
    if process.poll() is None:
        os.killpg(process.pid, 9)
        process.wait()


def stop_group(process, timeout=30):
    """SIGTERM to `process`, then its group killed if it has not exited within `timeout` s."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_group(process)


class DepotServe:
    """`depot serve` as every benchmark starts it, in `work` with `public` and `data` folders
    there, the access log off unless `settings` turns it on, `settings` added to the environment.
    On a free port read from its "listening on" line (`--port 0`), or on `port` when given, then
    with any `log_level` (below info, the line is not printed). `prefix` goes before the binary
    (`taskset -c 0`); `output`, a path, gets what the server prints. Stop it with `stop()`, or use
    it as a context manager."""

    def __init__(self, work, public="public", data="data", settings=None, binary=DEPOT, prefix=(), port=None, log_level=None,
                 output=None):
        os.makedirs(os.path.join(work, public), exist_ok=True)
        arguments = [*prefix, binary, "serve", "--port", str(port or 0), "--public", public, "--data", data]
        if log_level:
            arguments += ["--log-level", log_level]
        self.process = subprocess.Popen(arguments, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        env={**os.environ, "DEPOT_LOG_REQUESTS": "false", **(settings or {})})
        sink = open(output, "w") if output else None
        self.lines = []
        self.port = port

        def take(line):
            self.lines.append(line)
            if sink:
                sink.write(line)
                sink.flush()
        if port is None:
            for line in self.process.stdout:
                take(line)
                match = re.search(r"listening on [0-9.]+:([0-9]+)", line)
                if match:
                    self.port = int(match.group(1))
                    break
            if self.port is None:
                raise SystemExit("depot serve did not start: " + "".join(self.lines[-5:]))
        threading.Thread(target=lambda: [take(line) for line in self.process.stdout], daemon=True).start()
        if port is not None:
            wait_for(port)
        self.url = f"http://127.0.0.1:{self.port}"
        self.wait_for_public_folder()

    def wait_for_public_folder(self):
        """Waits until `/readyz` no longer answers the 503 of a public folder being scanned: a
        first start scans it after listening."""
        while True:
            try:
                with urllib.request.urlopen(self.url + "/readyz", timeout=5):
                    return
            except urllib.error.HTTPError as error:
                if error.code != 503 or b"being scanned" not in error.read():
                    return
            if self.process.poll() is not None:
                raise SystemExit("depot serve exited: " + "".join(self.lines[-5:]))
            time.sleep(0.02)

    @property
    def pid(self):
        return self.process.pid

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=60)

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.stop()


def children(pid):
    try:
        return [int(c) for c in open(f"/proc/{pid}/task/{pid}/children").read().split()]
    except FileNotFoundError:
        return []


def cpu_seconds(pid):
    """User + system CPU of a process and its threads (and its children, such as nginx's
    workers)."""
    total = 0
    for p in [pid] + children(pid):
        try:
            fields = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except FileNotFoundError:
            pass
    return total / CLOCK_TICKS


def status_mib(pid, field):
    """A memory figure of /proc/PID/status (VmHWM, VmRSS, RssAnon, RssFile), in MiB; 0 when
    absent."""
    status = open(f"/proc/{pid}/status").read()
    found = re.search(field + r":\s+(\d+)", status)
    return int(found.group(1)) / 1024 if found else 0


def reset_peak_rss(pid):
    """Starts VmHWM afresh (Linux ≥ 4.0), so the next reading is the peak from now on."""
    open(f"/proc/{pid}/clear_refs", "w").write("5")


class Relay:
    """A TCP relay that counts the bytes it passes, both ways."""

    def __init__(self, target_port):
        self.target_port = target_port
        self.bytes = 0
        self.lock = threading.Lock()
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(256)
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            client, _ = self.listener.accept()
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self.pipe, args=(a, b), daemon=True).start()

    def pipe(self, source, destination):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                with self.lock:
                    self.bytes += len(data)
                destination.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, destination):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def take(self):
        with self.lock:
            count, self.bytes = self.bytes, 0
        return count


NGINX_MAIN = """include /etc/nginx/modules-enabled/*.conf;
user {workers};
worker_processes {processes};
daemon off;
pid {root}/nginx.pid;
error_log {root}/error.log warn;
worker_rlimit_nofile 16384;
events {{ worker_connections 4096; }}
http {{
    log_format bench '{log_format}';
    access_log {log} bench buffer=64k flush=1s;
    client_body_temp_path {root}/body;
    proxy_temp_path {root}/proxy;
    fastcgi_temp_path {root}/fastcgi;
    uwsgi_temp_path {root}/uwsgi;
    scgi_temp_path {root}/scgi;
    include {root}/site.conf;
}}
"""


class Nginx:
    """Debian's nginx running a site file (deploy/nginx/depot.conf, say) as
    Tests/DepotEndToEndTests/Deploy runs it (Sources/DepotTestSupport/Nginx.swift): the file as
    it is but for `changes` (pairs of text to replace, each of which must be there) and
    `listen 80;` made `listen 127.0.0.1:port;` (a free one unless `port` is given), its master
    as this user and its workers as `nobody nogroup`, the modules apt installed, in the folder
    `root` (made readable by the workers), with one access-log line a request in `log_format`
    to `log`. Its own process group, so `kill()` takes its workers with it."""

    def __init__(self, root, site, changes=(), port=None, log=None, log_format="$msec $status $request_method $uri", processes=1,
                 workers="nobody nogroup"):
        os.makedirs(root, exist_ok=True)
        os.chmod(root, 0o755)
        self.root, self.port = root, port or free_port()
        self.log = log or os.path.join(root, "access.log")
        text = open(site).read()
        for shipped, local in [("listen 80;", f"listen 127.0.0.1:{self.port};"), *changes]:
            if shipped not in text:
                raise SystemExit(f"{site} no longer has {shipped!r}")
            text = text.replace(shipped, local)
        open(os.path.join(root, "site.conf"), "w").write(text)
        main = NGINX_MAIN.format(root=root, workers=workers, processes=processes, log=self.log, log_format=log_format)
        open(os.path.join(root, "nginx.conf"), "w").write(main)
        self.process = subprocess.Popen(["/usr/sbin/nginx", "-c", os.path.join(root, "nginx.conf")], stdout=subprocess.DEVNULL,
                                        stderr=open(os.path.join(root, "nginx.out"), "w"), start_new_session=True)
        wait_for(self.port, 30, self.process, lambda: f"nginx did not start: {open(os.path.join(root, 'error.log')).read()[-2000:]}")
        self.url = f"http://127.0.0.1:{self.port}"

    @property
    def pid(self):
        return self.process.pid

    def kill(self):
        """SIGKILL to nginx and its workers: a host that dies."""
        kill_group(self.process)

    def stop(self):
        stop_group(self.process)


# The edge format of bench-fleet's logs (`$msec $status $request_method $uri $upstream_cache_status
# $body_bytes_sent $request_time`) from varnishncsa: the response's Unix time in microseconds, how
# Varnish handled the request (hit, miss, pass, pipe or synth: a hit-for-miss object is a miss), and the
# seconds from the request's start to the response.
VARNISH_ACCESS_FORMAT = "%{VSL:Timestamp:Resp[1]}x %s %m %U %{Varnish:handling}x %b %{VSL:Timestamp:Resp[2]}x"


class Varnish:
    """Debian's Varnish with its default configuration: /etc/varnish/default.vcl copied to `root` with only
    its backend's port (and host) changed to `backend_port`, nothing else (the builtin VCL decides what is
    cached), `varnishd -a 127.0.0.1:PORT -f COPY -n WORKDIR -s malloc,256m -F` in its own process group, and
    `varnishncsa` writing one line a client request in VARNISH_ACCESS_FORMAT to `log` (appended).
    `kill()`: SIGKILL to varnishd and its child, a host that dies (its cache gone with it)."""

    VCL = "/etc/varnish/default.vcl"

    def __init__(self, root, backend_port, workdir=None, port=None, log=None, storage="malloc,256m"):
        os.makedirs(root, exist_ok=True)
        os.chmod(root, 0o755)
        self.root, self.port = root, port or free_port()
        self.log = log or os.path.join(root, "access.log")
        self.workdir = workdir or os.path.join(root, "varnish")
        text = open(self.VCL).read()
        for shipped, local in (('.host = "127.0.0.1";', '.host = "127.0.0.1";'), ('.port = "8080";', f'.port = "{backend_port}";')):
            if shipped not in text:
                raise SystemExit(f"{self.VCL} no longer has {shipped!r}")
            text = text.replace(shipped, local)
        self.vcl = os.path.join(root, "default.vcl")
        open(self.vcl, "w").write(text)
        self.process = subprocess.Popen(["/usr/sbin/varnishd", "-a", f"127.0.0.1:{self.port}", "-f", self.vcl, "-n", self.workdir,
                                         "-s", storage, "-F"], stdin=subprocess.DEVNULL, stdout=open(os.path.join(root, "varnishd.out"), "w"),
                                        stderr=subprocess.STDOUT, start_new_session=True)
        wait_for(self.port, 30, self.process, lambda: f"varnishd did not start: {open(os.path.join(root, 'varnishd.out')).read()[-2000:]}")
        self.ncsa = subprocess.Popen(["/usr/bin/varnishncsa", "-n", self.workdir, "-a", "-w", self.log, "-F", VARNISH_ACCESS_FORMAT],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=open(os.path.join(root, "varnishncsa.out"), "w"), start_new_session=True)
        # varnishncsa logs from the shared log's tail when it attaches: no request goes in before then. It has
        # attached once it maps the child's log segment (varnishd listens before its child is up).
        deadline = time.time() + 30
        while not self.logging():
            if self.ncsa.poll() is not None or self.process.poll() is not None or time.time() > deadline:
                raise SystemExit(f"varnishncsa did not attach: {open(os.path.join(root, 'varnishncsa.out')).read()[-2000:]}")
            time.sleep(0.05)
        self.url = f"http://127.0.0.1:{self.port}"

    def logging(self):
        try:
            maps = open(f"/proc/{self.ncsa.pid}/maps").read()
        except FileNotFoundError:
            return False
        return os.path.join(self.workdir, "_.vsm_child", "_.Log") in maps

    @property
    def pid(self):
        return self.process.pid

    def stop_log(self):
        """varnishncsa, once it has written what the shared log holds."""
        if self.ncsa.poll() is None:
            time.sleep(0.5)
            self.ncsa.terminate()
            try:
                self.ncsa.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.ncsa.kill()
                self.ncsa.wait()

    def kill(self):
        """SIGKILL to varnishd and its child: a host that dies."""
        kill_group(self.process)
        self.stop_log()

    def stop(self):
        stop_group(self.process)
        self.stop_log()
