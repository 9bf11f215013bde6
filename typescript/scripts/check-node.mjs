// The build uses the machine's Node; it never downloads one. Refuse an old one clearly.
const [major] = process.versions.node.split('.').map(Number);
if (major < 20) {
  console.error(`@leasehold/fencing needs Node.js 20 or newer; this is ${process.version}. Install Node 20+ (for example Debian's nodejs) and build again.`);
  process.exit(1);
}
