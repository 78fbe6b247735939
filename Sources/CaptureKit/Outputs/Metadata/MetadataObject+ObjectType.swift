extension MetadataObject {
    /// A kind of metadata object (`AVMetadataObject.ObjectType`): the machine-readable codes a
    /// ``CaptureMetadataOutput`` can look for. Which of them this machine decodes is
    /// ``CaptureMetadataOutput/availableMetadataObjectTypes``.
    public struct ObjectType: RawRepresentable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// A stable name, as used by `capture scan --types` (`qr`, `ean13`, …).
        public let rawValue: String

        /// A type from its name; any string makes a value, unknown ones are simply never available.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// QR Code (ISO/IEC 18004).
        public static let qr = ObjectType(rawValue: "qr")
        /// EAN-13 (GS1), 13 digits with the check digit.
        public static let ean13 = ObjectType(rawValue: "ean13")
        /// EAN-8 (GS1), 8 digits with the check digit.
        public static let ean8 = ObjectType(rawValue: "ean8")
        /// UPC-A, 12 digits with the check digit (AVFoundation reports these as EAN-13 with a
        /// leading zero; CaptureKit names them).
        public static let upca = ObjectType(rawValue: "upca")
        /// UPC-E, 8 digits: number system, six data digits, check digit.
        public static let upce = ObjectType(rawValue: "upce")
        /// Code 39 (the check character, when printed, is part of the string).
        public static let code39 = ObjectType(rawValue: "code39")
        /// Code 93.
        public static let code93 = ObjectType(rawValue: "code93")
        /// Code 128.
        public static let code128 = ObjectType(rawValue: "code128")
        /// Interleaved 2 of 5 (ITF), an even number of digits.
        public static let interleaved2of5 = ObjectType(rawValue: "itf")
        /// Codabar, with its start and stop characters.
        public static let codabar = ObjectType(rawValue: "codabar")
        /// Data Matrix (ISO/IEC 16022), square or rectangular.
        public static let dataMatrix = ObjectType(rawValue: "datamatrix")
        /// PDF417 (ISO/IEC 15438).
        public static let pdf417 = ObjectType(rawValue: "pdf417")

        /// Every type CaptureKit has a name for.
        public static let allCases: [ObjectType] = [.qr, .ean13, .ean8, .upca, .upce, .code39, .code93, .code128,
                                                     .interleaved2of5, .codabar, .dataMatrix, .pdf417]

        /// The name.
        public var description: String { rawValue }
    }
}
