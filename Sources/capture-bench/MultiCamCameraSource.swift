import CaptureKit

/// Where the cameras of a `multicam` benchmark come from, for both sides of every row: the
/// CaptureKit case asks it for N ``CaptureDevice``s, the ffmpeg peer for each camera's input
/// options. One value serves both, so CaptureKit and ffmpeg read the same pictures at the same
/// size and rate — virtual cameras looping testsrc2 on the host (``MultiCamInput``), or the
/// kernel's vivid cameras in the test VM (``MultiCamVividCameras``).
protocol MultiCamCameraSource: Sendable {
    /// A word for row labels and file names ("virtual", "vivid").
    var kind: String { get }
    /// Every camera's picture width, CaptureKit's and ffmpeg's.
    var width: Int { get }
    /// Every camera's picture height.
    var height: Int { get }
    /// Every camera's frame rate (whole frames per second).
    var frameRate: Int { get }
    /// The largest camera count a row may ask for; nil when cameras are made on demand.
    var cameraLimit: Int? { get }
    /// ffmpeg's input in short, for the ffmpeg rows' labels ("ffmpeg -re").
    var peerInput: String { get }
    /// How ffmpeg's input paces itself, for the notes: what a child that falls behind does.
    var peerPacing: String { get }
    /// What the cameras show and how CaptureKit's are made, for the notes.
    var notes: [String] { get }

    /// Readies what the cameras show, outside the row's measured CPU (the virtual cameras'
    /// frames read into memory). Called by each CaptureKit row, never by ffmpeg's.
    func prepare() throws
    /// The `count` cameras of a row labelled `row`, made (or picked) inside its measured window.
    func makeCameras(_ count: Int, row: String) throws -> [CaptureDevice]
    /// Gives back what ``makeCameras(_:row:)`` made, after the row.
    func release(_ cameras: [CaptureDevice])
    /// ffmpeg's input options for camera `index` of a row, `seconds` of pictures, ending with
    /// `-i …`; `shown` asks for placeholder paths, as the notes print the command.
    func ffmpegInput(camera index: Int, seconds: Double, shown: Bool) -> [String]
}
