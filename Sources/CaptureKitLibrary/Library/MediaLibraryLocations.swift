import CaptureKitCore
import CaptureKitMedia
import Foundation
import Glibc

/// Where a ``MediaLibrary`` keeps its files: the photos folder, the videos folder, the index
/// and the lock file beside it.
package struct MediaLibraryLocations: Sendable, Hashable {
    /// Folder of the photos.
    package var photos: URL
    /// Folder of the movies.
    package var videos: URL
    /// The SQLite index.
    package var index: URL

    /// The lock file beside the index (see ``MediaLibraryLock``).
    package var lock: URL { index.deletingPathExtension().appendingPathExtension("lock") }

    /// Everything under `root`: `root/Photos`, `root/Videos`, `root/library.sqlite`.
    package init(root: URL) {
        let root = root.standardizedFileURL
        photos = root.appendingPathComponent("Photos", isDirectory: true)
        videos = root.appendingPathComponent("Videos", isDirectory: true)
        index = root.appendingPathComponent("library.sqlite", isDirectory: false)
    }

    /// The desktop's places, as the XDG base-directory and user-dirs specifications say:
    /// photos in `CaptureKit` under the Pictures folder (`XDG_PICTURES_DIR` from
    /// `$XDG_CONFIG_HOME/user-dirs.dirs`, what `xdg-user-dir PICTURES` prints; else the
    /// environment variable; else `~/Pictures`), movies likewise under the Videos folder, the
    /// index at `$XDG_DATA_HOME/capturekit/library.sqlite` (`~/.local/share/…` by default).
    package static func standard(environment: [String: String]) throws(CaptureError) -> MediaLibraryLocations {
        let home = try homeDirectory(environment)
        let configHome = absolute(environment["XDG_CONFIG_HOME"]) ?? home.appendingPathComponent(".config", isDirectory: true)
        let dataHome = absolute(environment["XDG_DATA_HOME"]) ?? home.appendingPathComponent(".local/share", isDirectory: true)
        let userDirs = userDirectories(configHome.appendingPathComponent("user-dirs.dirs"), home: home)
        func folder(_ key: String, default name: String) -> URL {
            let configured = userDirs[key] ?? absolute(environment[key])
            // A user dir equal to the home folder means "disabled" in the user-dirs spec.
            guard let configured, configured.standardizedFileURL.path != home.standardizedFileURL.path else {
                return home.appendingPathComponent(name, isDirectory: true)
            }
            return configured
        }
        var locations = MediaLibraryLocations(root: home)
        locations.photos = folder("XDG_PICTURES_DIR", default: "Pictures").appendingPathComponent("CaptureKit", isDirectory: true)
        locations.videos = folder("XDG_VIDEOS_DIR", default: "Videos").appendingPathComponent("CaptureKit", isDirectory: true)
        locations.index = dataHome.appendingPathComponent("capturekit/library.sqlite", isDirectory: false)
        return locations
    }

    /// `$HOME`, else the password database's home of this user.
    private static func homeDirectory(_ environment: [String: String]) throws(CaptureError) -> URL {
        if let home = absolute(environment["HOME"]) { return home }
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        if getpwuid_r(getuid(), &entry, &buffer, buffer.count, &result) == 0, result != nil, let directory = entry.pw_dir,
           let home = absolute(String(cString: directory)) {
            return home
        }
        throw CaptureError(.fileError, "there is no home folder to keep the media library in (set HOME, or use MediaLibrary(root:))",
                           operation: "getpwuid_r")
    }

    /// An absolute path as a folder URL; nil for nil, empty or relative paths (which the XDG
    /// specifications say to ignore).
    private static func absolute(_ path: String?) -> URL? {
        guard let path, path.hasPrefix("/") else { return nil }
        return URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
    }

    /// The `XDG_*_DIR="$HOME/…"` lines of `user-dirs.dirs` (a shell fragment: values are
    /// `"$HOME/path"` or `"/absolute/path"`, with `\"`, `\\`, `\$` and `` \` `` escaped).
    package static func userDirectories(_ file: URL, home: URL) -> [String: URL] {
        guard let data = FileManager.default.contents(atPath: file.path) else { return [:] }
        var result: [String: URL] = [:]
        for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let text = line.trimmingCharacters(in: .whitespaces)
            guard !text.hasPrefix("#"), let equals = text.firstIndex(of: "=") else { continue }
            let key = String(text[..<equals])
            var value = Substring(text[text.index(after: equals)...])
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = value.dropFirst().dropLast() }
            var unescaped = ""
            var escaping = false
            for character in value {
                if escaping || character != "\\" {
                    unescaped.append(character)
                    escaping = false
                } else {
                    escaping = true
                }
            }
            if unescaped == "$HOME" {
                result[key] = home
            } else if unescaped.hasPrefix("$HOME/") {
                result[key] = home.appendingPathComponent(String(unescaped.dropFirst(6)), isDirectory: true).standardizedFileURL
            } else if let path = absolute(unescaped) {
                result[key] = path
            }
        }
        return result
    }
}
