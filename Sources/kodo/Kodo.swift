import ArgumentParser
import KodoCore

@main
struct Kodo: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "kodo",
    abstract: "Browse Qiniu Kodo object storage from the terminal and from scripts.",
    discussion: """
      Credentials come from QINIU_ACCESS_KEY and QINIU_SECRET_KEY, or from the config file
      ($XDG_CONFIG_HOME/kodo/config.json, ~/.config/kodo/config.json, --config, KODO_CONFIG).

      Examples:
        kodo buckets
        kodo ls photos/2024/
        kodo ls -r --json logs | jq .key
        kodo stat photos 2024/beach.jpg
        kodo url --expires 2h photos 2024/beach.jpg
      """,
    version: KodoVersion.current,
    subcommands: [
      Buckets.self, List.self, Stat.self, URLCommand.self, Cat.self, Get.self, Domains.self,
      Token.self,
    ]
  )

  @OptionGroup var global: GlobalOptions
}
