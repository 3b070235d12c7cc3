// swift-tools-version:6.2
import PackageDescription

let strict: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("InternalImportsByDefault"),
  .treatAllWarnings(as: .error),
]

let package = Package(
  name: "kodo",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "kodo", targets: ["kodo"]),
    .executable(name: "kodo-emulator", targets: ["kodo-emulator"]),
    .library(name: "StorageCore", targets: ["StorageCore"]),
    .library(name: "KodoCore", targets: ["KodoCore"]),
    .library(name: "OSSCore", targets: ["OSSCore"]),
    .library(name: "KodoCLI", targets: ["KodoCLI"]),
    .library(name: "KodoEmulator", targets: ["KodoEmulator"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
    .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.0.0"),
    .package(url: "https://github.com/apple/swift-system", from: "1.7.0"),
    .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
  ],
  targets: [
    .systemLibrary(
      name: "CCurl",
      pkgConfig: "libcurl",
      providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
    ),
    .systemLibrary(
      name: "COpenSSL",
      pkgConfig: "openssl",
      providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
    ),
    .systemLibrary(
      name: "CLibXML2",
      pkgConfig: "libxml-2.0",
      providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
    ),
    // CRC-64/XZ folded with PCLMULQDQ on the CPUs that have it (OSSCore's `CRC64` keeps its
    // tables for the others).
    .target(name: "CCRC64"),
    // MD5 and SHA-1 of many messages at once, one SIMD lane each (AVX-512, AVX2), chosen at run
    // time, with portable C for the rest (StorageCore's `LaneHash`).
    .target(name: "CDigestLanes"),
    // Provider-neutral: model, errors, transport, request pipeline, paging, digests, codecs.
    .target(
      name: "StorageCore",
      dependencies: [
        "CCurl", "COpenSSL", "CDigestLanes",
        .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: strict
    ),
    // The Qiniu Kodo provider.
    .target(name: "KodoCore", dependencies: ["StorageCore"], swiftSettings: strict),
    // The Aliyun OSS provider's pure parts: signing, addressing, CRC-64, XML answers.
    .target(name: "OSSCore", dependencies: ["StorageCore", "CCRC64"], swiftSettings: strict),
    // The browser's pure core: state, update, view, diff, key decoding, cell widths.
    .target(name: "KodoBrowse", dependencies: ["StorageCore"], swiftSettings: strict),
    // The commands, as a library that tests run in process.
    .target(
      name: "KodoCLI",
      dependencies: [
        "StorageCore",
        "KodoCore",
        "OSSCore",
        "KodoBrowse",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "SystemPackage", package: "swift-system"),
        .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
      ],
      swiftSettings: strict
    ),
    .executableTarget(name: "kodo", dependencies: ["KodoCLI"], swiftSettings: strict),
    .target(
      name: "KodoEmulator",
      dependencies: [
        "StorageCore",
        "KodoCore",
        "OSSCore",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
      ],
      swiftSettings: strict
    ),
    .target(
      name: "KodoEmulatorCLI",
      dependencies: [
        "StorageCore",
        "KodoCore",
        "KodoEmulator",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      swiftSettings: strict
    ),
    .executableTarget(
      name: "kodo-emulator",
      dependencies: ["KodoEmulatorCLI"],
      swiftSettings: strict
    ),
    .target(
      name: "KodoTestSupport",
      dependencies: [
        "StorageCore",
        "KodoCore",
        "KodoEmulator",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "PropertyBased", package: "swift-property-based"),
      ],
      path: "Tests/KodoTestSupport",
      swiftSettings: strict
    ),
    .testTarget(
      name: "KodoCoreTests",
      dependencies: [
        "StorageCore",
        "KodoCore",
        "KodoTestSupport",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "OSSCoreTests",
      dependencies: [
        "StorageCore",
        "OSSCore",
        "KodoEmulator",
        "CLibXML2",
        "KodoTestSupport",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "StorageCoreTests",
      dependencies: [
        "StorageCore", "KodoTestSupport",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "KodoEmulatorTests",
      dependencies: [
        "StorageCore", "KodoCore", "OSSCore", "KodoEmulator", "KodoEmulatorCLI", "KodoTestSupport",
      ],
      swiftSettings: strict
    ),
    .testTarget(
      name: "KodoBrowseTests",
      dependencies: ["StorageCore", "KodoBrowse", "KodoTestSupport"],
      swiftSettings: strict
    ),
    .testTarget(
      name: "KodoCLITests",
      dependencies: [
        "StorageCore", "KodoCore", "OSSCore", "KodoCLI", "KodoEmulator", "KodoTestSupport",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ],
      swiftSettings: strict
    ),
  ]
)
