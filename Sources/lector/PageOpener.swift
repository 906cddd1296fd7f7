import Glibc

/// Opens the page in the desktop's browser with `xdg-open` (which honours `$BROWSER`).
///
///     PageOpener.open("http://127.0.0.1:40123/?token=…")   // false: no browser could be started
enum PageOpener {
    @discardableResult
    static func open(_ url: String) -> Bool {
        var pid: pid_t = 0
        var arguments: [UnsafeMutablePointer<CChar>?] = [strdup("xdg-open"), strdup(url), nil]
        defer { for argument in arguments { free(argument) } }
        guard posix_spawnp(&pid, "xdg-open", nil, nil, &arguments, environ) == 0 else { return false }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return status == 0
    }
}
