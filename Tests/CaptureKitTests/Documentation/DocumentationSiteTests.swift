import Foundation
import Testing

/// The DocC reference and guides as `scripts/docs.sh` builds them and a reader meets them: the
/// build itself refuses any DocC warning, an undocumented public symbol and a code block that
/// does not compile; the site then has to load, page by page and link by link, from a loopback
/// server in headless Chromium (Tests/Browser/docs_site_check.py).
@Suite(.excludable, .tags(.childProcess, .browser))
struct DocumentationSiteTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// What the browser script reports.
    private struct SiteCheck: Decodable {
        struct Broken: Decodable { let page: String; let html: Int; let data: Int }
        struct Rendered: Decodable { let page: String; let title: String; let links: Int; let unknownLinks: [String] }
        let pages: Int
        let links: Int
        let broken: [Broken]
        let missingPages: [String]
        let rendered: [Rendered]
    }

    /// The articles of both catalogs, by their page paths (`/documentation/capturekit/photos`).
    private static func articlePages() throws -> Set<String> {
        var pages = Set<String>()
        for module in ["CaptureKit", "CaptureKitPreview"] {
            let catalog = root.appendingPathComponent("Sources/\(module)/\(module).docc")
            for file in try FileManager.default.contentsOfDirectory(atPath: catalog.path)
            where file.hasSuffix(".md") && file != "\(module).md" {
                pages.insert("/documentation/\(module.lowercased())/\(file.dropLast(3).lowercased())")
            }
        }
        return pages
    }

    @Test(.enabled(if: PreviewPrerequisites.runnable(["chromium", "chromedriver", "docc", "swift-symbolgraph-extract"])))
    func theSiteBuildsCleanAndEveryPageAndLinkLoadsInABrowser() throws {
        let scratch = try PhotoScratch()
        let site = "\(scratch.path)/site"
        let build = String(decoding: try PhotoTools.run(Self.root.appendingPathComponent("scripts/docs.sh").path,
                                                        ["--no-build", "--output", site], in: scratch), as: UTF8.self)
        // The script exits non-zero on any of these; its summary lines say the counts it saw.
        let coverage = try #require(build.split(separator: "\n").first { $0.hasPrefix("coverage:") })
        #expect(coverage.hasSuffix("(100.0 %)"), "\(coverage)")
        let snippets = try #require(build.split(separator: "\n").first { $0.hasPrefix("snippets:") })
        let counts = snippets.split(separator: " ").compactMap { Int($0) }
        #expect(counts.count >= 2 && counts[0] == counts[1] && counts[1] > 0, "\(snippets)")

        let report = try PhotoTools.run("/usr/bin/python3", [Self.root.appendingPathComponent("Tests/Browser/docs_site_check.py").path, site],
                                        in: scratch)
        let check = try JSONDecoder().decode(SiteCheck.self, from: report)
        #expect(check.broken.isEmpty, "pages that do not load: \(check.broken.map(\.page))")
        #expect(check.missingPages.isEmpty, "not reachable from the landing pages: \(check.missingPages)")
        // Every symbol has a page: far more pages than top-level types.
        #expect(check.pages > 1000 && check.links > check.pages)

        let rendered = Dictionary(check.rendered.map { ($0.page, $0) }, uniquingKeysWith: { first, _ in first })
        let expected = try Self.articlePages().union(["/documentation", "/documentation/capturekit", "/documentation/capturekitpreview",
                                                      "/documentation/capturekit/capturesession"])
        #expect(Set(rendered.keys) == expected)
        #expect(rendered["/documentation/capturekit/capturesession"]?.title == "CaptureSession")
        for page in check.rendered {
            #expect(page.links > 0, "\(page.page) shows no link")
            #expect(page.unknownLinks.isEmpty, "\(page.page) links to pages that do not exist: \(page.unknownLinks)")
        }
    }
}
