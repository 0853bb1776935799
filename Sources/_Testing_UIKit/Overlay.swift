// Swift Testing's cross-import overlay for UIKit. Linux's toolchain declares it
// (`Testing.swiftcrossimport/UIKit.swiftoverlay`) without shipping the module, so a test file that imports Testing
// beside UIKit, or beside a module that re-exports UIKit as CleverTapSDK, Mixpanel and IterableAppExtensions do
// (their Apple frameworks' umbrella headers import it), fails with "no such module '_Testing_UIKit'". The compiler
// reads an overlay in place of the module that declares it, so this one re-exports Testing, and adds nothing: the
// UIImage attachments Apple's overlay adds need Apple's image types.
@_exported import Testing
