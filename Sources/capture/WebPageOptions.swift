import CaptureKitPreview
import CommandLineSupport

/// What `capture preview --web` and `capture watch --web` share about their page: the `--port`
/// and `--bind` options, and the lines that say where it is served.
enum WebPageOptions {
    /// `--port N` and `--bind ADDR`.
    static let options: [CommandOption] = [
        .value("port", "N", "the web page's port (default: any free port)"),
        .value("bind", "ADDR", "the address to listen on (default 127.0.0.1, this machine only;\n0.0.0.0 for every interface)"),
    ]

    /// The preview options `--port` and `--bind` ask for.
    static func parse(_ arguments: Arguments) throws(UsageError) -> CaptureWebPreview.Options {
        var options = CaptureWebPreview.Options()
        options.port = try arguments.integer("port", default: 0, in: 0...65535)
        if let bind = arguments.value("bind") { options.bindAddress = bind }
        return options
    }

    /// Says, through `say`, what `preview` serves (`serving WHAT at URL`) and, when it listens
    /// beyond this machine, who can reach it.
    static func announce(_ preview: CaptureWebPreview, serving what: String, bindAddress: String, say: (String) -> Void) {
        say("serving \(what) at \(preview.url.absoluteString)")
        if bindAddress != "127.0.0.1" && bindAddress != "::1" {
            say("listening on \(bindAddress): anyone who can reach port \(preview.port) and has the URL can watch")
        }
    }
}
