/**
 * The builder codes this project knows, in one place: orders default to the code the points
 * program counts as the service's own, so a default run's fills earn points.
 */
export const NUNCHI_BUILDER = "0x0D1DB1C800184A203915757BbbC0ee3A8E12FfB0";
const BASED_BUILDER = "0x1924b8561eef20e70ede628a296175d358be80e5";
const TREADFI_BUILDER = "0x999a4B5F268A8fBf33736FeFf360d462AD248Dbf";

/** The builder codes whose fills the points program counts. */
export const POINTS_ELIGIBLE_BUILDERS: readonly { name: string; address: string }[] = [
  { name: "Nunchi", address: NUNCHI_BUILDER },
  { name: "Based", address: BASED_BUILDER },
  { name: "TreadFi", address: TREADFI_BUILDER },
];

/** The builder code attached to orders unless BUILDER_ADDRESS says otherwise. */
export const DEFAULT_BUILDER_ADDRESS = NUNCHI_BUILDER;
